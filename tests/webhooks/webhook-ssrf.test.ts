import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../harness/requests.ts';
import type { TestApp } from '../harness/test-app.ts';
import { waitFor } from '../harness/wait-for.ts';
import {
  createWebhook,
  startReceiver,
  startWebhookApp,
  startWebhookWorker,
  type Receiver,
  type TestWorker,
} from './webhook-harness.ts';

/**
 * The SSRF guard at send time: endpoints registered while private addresses were allowed (the app below), then
 * delivered by a worker that refuses them (CLARION_ALLOW_PRIVATE_WEBHOOKS=false). No traffic reaches the receiver;
 * every refusal is a logged attempt. (Registration refusals: tests/api/webhooks/create-400.test.ts.)
 */
let t: TestApp;
let strictWorker: TestWorker;
let hook: Receiver;
beforeAll(async () => {
  t = await startWebhookApp({ allowPrivateWebhooks: true });
  strictWorker = await startWebhookWorker(t, { allowPrivateWebhooks: false });
  hook = await startReceiver();
});
afterAll(async () => {
  await hook?.close();
  await strictWorker?.stop();
  await t?.close();
});

describe('webhook delivery refuses private addresses at send time', () => {
  it.each([
    [
      'an IPv4 loopback address',
      (port: number) => `http://127.0.0.1:${port}/hook`,
      /^refused: 127\.0\.0\.1 is a loopback address \(127\.0\.0\.0\/8\)/,
    ],
    [
      'an IPv4-mapped IPv6 loopback address',
      (port: number) => `http://[::ffff:127.0.0.1]:${port}/hook`,
      /^refused: ::ffff:7f00:1 is a loopback address/,
    ],
    [
      'a name that resolves to loopback',
      (port: number) => `http://localhost:${port}/hook`,
      /^refused: localhost resolves to (127\.0\.0\.1|::1) is a loopback address/,
    ],
  ])('%s: the attempt is logged as refused and nothing is sent', async (_name, url, error) => {
    const account = await t.newAccount();
    const webhook = await createWebhook(t, account.secretKey, { url: url(hook.port) });
    expect((await post(t.app, `/api/v1/webhooks/${webhook.id}/test`, account.secretKey)).statusCode).toBe(202);
    const messages = async () =>
      (await get(t.app, `/api/v1/webhooks/${webhook.id}/messages`, account.secretKey)).body.data;
    await waitFor(async () => (await messages())[0]?.attemptCount === 1, 10_000, 'the refused attempt');
    const [message] = await messages();
    expect(message.status).toBe('pending');
    expect(message.attempts[0]).toMatchObject({
      statusCode: null,
      responseExcerpt: null,
      error: expect.stringMatching(error),
    });
    expect(message.attempts[0].error).toContain('CLARION_ALLOW_PRIVATE_ADDRESSES=true');
    expect(hook.requests).toHaveLength(0);
  });
});
