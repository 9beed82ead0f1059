import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { insertWebhookFixture, startWebhookApp, webhookState } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/webhook-messages/:id/retry → 404 not_found', () => {
  it.each([
    ['an unknown message id', () => newId('webhookMessage')],
    ['a malformed id', () => 'msg_x'],
    ['a webhook id', () => newId('webhook')],
  ])('answers not_found for %s', async (_name, id) => {
    const account = await t.newAccount();
    expect(
      expectError(await post(t.app, `/api/v1/webhook-messages/${id()}/retry`, account.secretKey), 'not_found').message,
    ).toBe('No webhook message with that id.');
  });

  it("answers not_found for another account's message, and queues nothing", async () => {
    const owner = await t.newAccount();
    const { webhookMessage } = await insertWebhookFixture(t, owner.id);
    const other = await t.newAccount();
    const before = await webhookState(t, owner.id);
    expectError(await post(t.app, `/api/v1/webhook-messages/${webhookMessage}/retry`, other.secretKey), 'not_found');
    expect(await webhookState(t, owner.id)).toEqual(before);
  });
});
