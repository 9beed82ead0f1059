import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClarionApp } from '../../../src/http/app-types.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startFaultyApp, type FaultyApp } from '../../harness/faulty-app.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { diskFullError, readOnlyError, type FaultyStore } from '../../delivery/engine/store-faults.ts';

/** A store that answers reads but cannot store is not ready. The driver's error is injected on writes. */
let t: TestApp;
let faulty: FaultyStore;
let app: ClarionApp;
const isInsert = (node: { kind: string }) => node.kind === 'InsertQueryNode';

let h: FaultyApp;
beforeAll(async () => {
  h = await startFaultyApp();
  ({ t, faulty, app } = h);
});
afterAll(async () => h?.close());

describe('GET /readyz → 503 when storage is not writable', () => {
  it.each([
    ['disk full', diskFullError],
    ['read-only', readOnlyError],
  ])('%s: not ready, while reads and /healthz still work', async (_name, error) => {
    expect((await get(app, '/readyz', null)).statusCode).toBe(200);
    faulty.failNext(1, isInsert, () => error(t.store.dialect));
    expect(expectError(await get(app, '/readyz', null), 'unavailable').message).toBe('Storage is not writable.');
    expect((await get(app, '/healthz', null)).statusCode).toBe(200);
    // The probe leaves nothing behind, and ready again once writes work.
    expect((await get(app, '/readyz', null)).statusCode).toBe(200);
    expect(await t.store.db.selectFrom('jobs').select('id').where('kind', '=', 'readyz.probe').execute()).toEqual([]);
  });
});
