import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { insertWebhookFixture, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/webhooks/:id/enable → 200', () => {
  it('re-enables a disabled endpoint and clears the reason and the failure streak', async () => {
    const account = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, account.id);
    const at = t.clock.now();
    await t.store.db
      .updateTable('webhook_endpoints')
      .set({
        status: 'disabled',
        disabled_reason: 'The endpoint answered 410 Gone.',
        disabled_at: at,
        failing_since: at - 5 * 86_400_000,
      })
      .where('id', '=', webhook)
      .execute();
    t.clock.advance(1_000);
    const data = expectSuccess(await post(t.app, `/api/v1/webhooks/${webhook}/enable`, account.secretKey), 200);
    expect(data).toMatchObject({
      id: webhook,
      status: 'enabled',
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      updatedAt: new Date(t.clock.now()).toISOString(),
    });
    expect((await get(t.app, `/api/v1/webhooks/${webhook}`, account.secretKey)).body.data).toEqual(data);
  });

  it('changes nothing on an endpoint that is enabled', async () => {
    const account = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, account.id);
    const before = (await get(t.app, `/api/v1/webhooks/${webhook}`, account.secretKey)).body.data;
    t.clock.advance(1_000);
    expect(expectSuccess(await post(t.app, `/api/v1/webhooks/${webhook}/enable`, account.secretKey), 200)).toEqual(
      before,
    );
  });
});
