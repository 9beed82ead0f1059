import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  createWebhook,
  del,
  startReceiver,
  startWebhookApp,
  startWebhookWorker,
  webhookState,
} from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('DELETE /api/v1/webhooks/:id → 200', () => {
  it('deletes the endpoint and its message log; its queued attempts send nothing', async () => {
    const hook = await startReceiver();
    try {
      const account = await t.newAccount();
      const webhook = await createWebhook(t, account.secretKey, { url: hook.url });
      const keep = await createWebhook(t, account.secretKey, { url: hook.url });
      const queued = (await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey)).body.data;
      expect(await webhookState(t, account.id)).toEqual({ endpoints: 2, messages: 1, jobs: 1 });

      expect(expectSuccess(await del(t, `/api/v1/webhooks/${webhook.id}`, account.secretKey), 200)).toEqual({
        id: webhook.id,
        deleted: true,
      });
      expect(await webhookState(t, account.id)).toEqual({ endpoints: 1, messages: 0, jobs: 0 });
      expect((await get(t.app, '/api/v1/webhooks', account.secretKey)).body.data.map((item: any) => item.id)).toEqual([
        keep.id,
      ]);

      // The attempt job still in the queue finds no message: it completes without a request.
      const worker = await startWebhookWorker(t);
      try {
        await waitFor(
          async () =>
            (
              await t.store.db
                .selectFrom('jobs')
                .select('state')
                .where('payload', 'like', `%${queued.id}%`)
                .executeTakeFirstOrThrow()
            ).state === 'completed',
          10_000,
          'the orphaned attempt to complete',
        );
      } finally {
        await worker.stop();
      }
      expect(hook.requests).toHaveLength(0);
    } finally {
      await hook.close();
    }
  });
});
