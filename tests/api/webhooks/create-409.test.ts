import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WEBHOOKS_PER_ACCOUNT } from '../../../src/http/endpoints/webhooks/create-webhook.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { del, PUBLIC_URL, startWebhookApp, webhookState } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/webhooks → 409 conflict', () => {
  it(`refuses a ${MAX_WEBHOOKS_PER_ACCOUNT + 1}th endpoint in one account, and allows one again after a deletion`, async () => {
    const account = await t.newAccount();
    const ids: string[] = [];
    for (let n = 0; n < MAX_WEBHOOKS_PER_ACCOUNT; n += 1) {
      const created = await post(t.app, '/api/v1/webhooks', account.secretKey, { url: `${PUBLIC_URL}/${n}` });
      expect(created.statusCode).toBe(201);
      ids.push(created.body.data.id);
    }
    const error = expectError(
      await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL }),
      'conflict',
    );
    expect(error).toMatchObject({
      message: `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhook endpoints; delete one first.`,
      details: { limit: MAX_WEBHOOKS_PER_ACCOUNT },
    });
    expect(await webhookState(t, account.id)).toMatchObject({ endpoints: MAX_WEBHOOKS_PER_ACCOUNT });

    // The limit is per account.
    const other = await t.newAccount();
    expect((await post(t.app, '/api/v1/webhooks', other.secretKey, { url: PUBLIC_URL })).statusCode).toBe(201);

    expect((await del(t, `/api/v1/webhooks/${ids[0]}`, account.secretKey)).statusCode).toBe(200);
    expect((await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL })).statusCode).toBe(201);
  });
});
