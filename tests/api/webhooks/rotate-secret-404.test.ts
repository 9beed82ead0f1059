import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { insertWebhookFixture, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/webhooks/:id/rotate-secret → 404 not_found', () => {
  it("answers not_found for an unknown id and for another account's webhook (whose secret stays)", async () => {
    const owner = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, owner.id);
    const other = await t.newAccount();
    const row = () =>
      t.store.db.selectFrom('webhook_endpoints').select(['secret']).where('id', '=', webhook).executeTakeFirstOrThrow();
    const before = await row();
    expectError(
      await post(t.app, `/api/v1/webhooks/${newId('webhook')}/rotate-secret`, other.secretKey, {}),
      'not_found',
    );
    const response = await post(t.app, `/api/v1/webhooks/${webhook}/rotate-secret`, other.secretKey, {});
    expectError(response, 'not_found');
    expect(JSON.stringify(response.body)).not.toContain('whsec_');
    expect(await row()).toEqual(before);
  });
});
