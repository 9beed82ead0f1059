import { afterAll, beforeAll, describe, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectValidation } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/live-activities → 400 validation_failed', () => {
  it.each([
    ['an unknown status', '?status=running', ['status']],
    ['a limit of 0', '?limit=0', ['limit']],
    ['a limit over 100', '?limit=101', ['limit']],
    ['a cursor that is not an activity id', `?cursor=${newId('notification')}`, ['cursor']],
    ['a malformed channel code', '?channelCode=Not%20A%20Code', ['channelCode']],
    ['an unknown parameter', '?template=progress', ['template']],
  ])('refuses %s', async (_name, query, fields) => {
    const account = await t.newAccount({ channels: ['orders'] });
    expectValidation(await get(t.app, `/api/v1/live-activities${query}`, account.secretKey), fields);
  });
});
