import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { insertWebhookFixture, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/webhooks/:id/secret → 404 not_found', () => {
  it("answers not_found for an unknown id and for another account's webhook", async () => {
    const owner = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, owner.id);
    const other = await t.newAccount();
    expectError(await get(t.app, `/api/v1/webhooks/${newId('webhook')}/secret`, other.secretKey), 'not_found');
    const response = await get(t.app, `/api/v1/webhooks/${webhook}/secret`, other.secretKey);
    expectError(response, 'not_found');
    expect(JSON.stringify(response.body)).not.toContain('whsec_');
  });
});
