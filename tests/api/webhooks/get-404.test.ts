import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { del, insertWebhookFixture, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/webhooks/:id → 404 not_found', () => {
  it.each([
    ['an unknown id', () => newId('webhook')],
    ['a malformed id', () => 'whk_nope'],
    ['a notification id', () => newId('notification')],
  ])('answers not_found for %s', async (_name, id) => {
    const account = await t.newAccount();
    expect(expectError(await get(t.app, `/api/v1/webhooks/${id()}`, account.secretKey), 'not_found').message).toBe(
      'No webhook with that id.',
    );
  });

  it("answers not_found for another account's webhook", async () => {
    const owner = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, owner.id);
    const other = await t.newAccount();
    expectError(await get(t.app, `/api/v1/webhooks/${webhook}`, other.secretKey), 'not_found');
    expect((await get(t.app, `/api/v1/webhooks/${webhook}`, owner.secretKey)).statusCode).toBe(200);
  });

  it('answers not_found for a deleted webhook', async () => {
    const account = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, account.id);
    expect((await del(t, `/api/v1/webhooks/${webhook}`, account.secretKey)).statusCode).toBe(200);
    expectError(await get(t.app, `/api/v1/webhooks/${webhook}`, account.secretKey), 'not_found');
  });
});
