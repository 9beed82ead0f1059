import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { createTestApp, secretsIn } from './app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/apps and /api/v1/apps/:id → 200', () => {
  it("shows the account's apps with fingerprints, never a private key", async () => {
    const account = await t.newAccount();
    const first = await createTestApp(t, account.secretKey, 'First');
    const second = await createTestApp(t, account.secretKey, 'Second');
    const one = await get(t.app, `/api/v1/apps/${first.id}`, account.secretKey);
    expect(expectSuccess(one, 200)).toEqual(first);
    const list = await get(t.app, '/api/v1/apps?limit=1', account.secretKey);
    expect(list.statusCode).toBe(200);
    expect(list.body.data.map((app: any) => app.id)).toEqual([first.id]);
    expect(list.body.nextCursor).toEqual(expect.any(String));
    const rest = await get(t.app, `/api/v1/apps?cursor=${list.body.nextCursor}`, account.secretKey);
    expect(rest.body.data.map((app: any) => app.id)).toEqual([second.id]);
    for (const response of [one, list, rest]) expect(secretsIn(response.payload)).toEqual([]);
  });

  it("lists none of another account's apps", async () => {
    const owner = await t.newAccount();
    await createTestApp(t, owner.secretKey);
    const other = await t.newAccount();
    expect((await get(t.app, '/api/v1/apps', other.secretKey)).body.data).toEqual([]);
  });
});
