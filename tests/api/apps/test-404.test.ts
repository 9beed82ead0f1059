import { afterAll, beforeAll, describe, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/apps/:id/test → 404 not_found', () => {
  it("answers not_found for an unknown id and for another account's app", async () => {
    const owner = await t.newAccount();
    const created = await post(t.app, '/api/v1/apps', owner.secretKey, { name: 'Web only' });
    const other = await t.newAccount();
    expectError(await post(t.app, `/api/v1/apps/${created.body.data.id}/test`, other.secretKey), 'not_found');
    expectError(await post(t.app, `/api/v1/apps/${newId('app')}/test`, owner.secretKey), 'not_found');
  });
});
