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

describe('POST /api/v1/webhooks/:id/enable → 404 not_found', () => {
  it("answers not_found for an unknown id and for another account's webhook (which stays disabled)", async () => {
    const owner = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, owner.id);
    await t.store.db
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_reason: 'gone', disabled_at: t.clock.now() })
      .where('id', '=', webhook)
      .execute();
    const other = await t.newAccount();
    expectError(await post(t.app, `/api/v1/webhooks/${newId('webhook')}/enable`, other.secretKey), 'not_found');
    expectError(await post(t.app, `/api/v1/webhooks/${webhook}/enable`, other.secretKey), 'not_found');
    expect(
      (
        await t.store.db
          .selectFrom('webhook_endpoints')
          .select('status')
          .where('id', '=', webhook)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('disabled');
  });
});
