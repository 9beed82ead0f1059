import { afterAll, beforeAll, describe, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { send } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/notifications/:id → 404 not_found', () => {
  it.each([
    ['an unknown id', () => newId('notification')],
    ['an id of another kind', () => newId('subscriber')],
    ['a malformed id', () => 'ntf_nope'],
    ['an id of 80 characters', () => `ntf_${'a'.repeat(76)}`],
    ['a NUL character', () => '%00'],
    ['SQL', () => encodeURIComponent("ntf_' OR '1'='1")],
  ])('answers not_found for %s', async (_name, id) => {
    const account = await t.newAccount({ channels: ['news'] });
    await send(t.app, account.secretKey, 'news');
    expectError(await get(t.app, `/api/v1/notifications/${id()}`, account.secretKey), 'not_found');
  });

  it("answers not_found for another account's notification", async () => {
    const owner = await t.newAccount({ channels: ['news'] });
    const id = await send(t.app, owner.secretKey, 'news');
    const other = await t.newAccount({ channels: ['news'] });
    expectError(await get(t.app, `/api/v1/notifications/${id}`, other.secretKey), 'not_found');
  });

  it('answers not_found for a notification in a channel outside the key scope', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const id = await send(t.app, account.secretKey, 'sport');
    const scoped = await account.key({ channels: ['news'] });
    expectError(await get(t.app, `/api/v1/notifications/${id}`, scoped.value), 'not_found');
  });
});
