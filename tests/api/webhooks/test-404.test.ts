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

describe('POST /api/v1/webhooks/:id/test → 404 not_found', () => {
  it("answers not_found for an unknown id and for another account's webhook, and queues nothing", async () => {
    const owner = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, owner.id);
    const other = await t.newAccount();
    const before = await webhookState(t, owner.id);
    expectError(await post(t.app, `/api/v1/webhooks/${newId('webhook')}/test`, other.secretKey), 'not_found');
    expectError(await post(t.app, `/api/v1/webhooks/${webhook}/test`, other.secretKey), 'not_found');
    expect(await webhookState(t, owner.id)).toEqual(before);
  });
});
