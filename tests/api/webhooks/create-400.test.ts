import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectValidation } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { PUBLIC_URL, startWebhookApp, webhookState } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  // The SSRF guard is on (the production default): these refusals never open a connection.
  t = await startWebhookApp({ allowPrivateWebhooks: false });
});
afterAll(async () => t.close());

const PRIVATE_HINT =
  'only public addresses are reached (the operator can allow private ones with CLARION_ALLOW_PRIVATE_ADDRESSES=true)';

describe('POST /api/v1/webhooks → 400 validation_failed', () => {
  it.each([
    ['no url', {}, ['url']],
    ['an empty url', { url: '' }, ['url']],
    ['a url that is a number', { url: 42 }, ['url']],
    ['an unknown event type', { url: PUBLIC_URL, events: ['subscriber.renamed'] }, ['events.0']],
    ['an empty event list', { url: PUBLIC_URL, events: [] }, ['events']],
    ['a repeated event type', { url: PUBLIC_URL, events: ['subscriber.created', 'subscriber.created'] }, ['events']],
    ['"*" with other types', { url: PUBLIC_URL, events: ['*', 'subscriber.created'] }, ['events']],
    ['a description over 500 characters', { url: PUBLIC_URL, description: 'x'.repeat(501) }, ['description']],
    ['an unknown field', { url: PUBLIC_URL, secret: 'whsec_mine' }, ['secret']],
  ])('refuses %s', async (_name, body, fields) => {
    const account = await t.newAccount();
    expectValidation(await post(t.app, '/api/v1/webhooks', account.secretKey, body), fields);
    expect(await webhookState(t, account.id)).toEqual({ endpoints: 0, messages: 0, jobs: 0 });
  });

  it.each([
    ['ftp://files.example.com/hook', 'must use http or https (got ftp)'],
    ['not a url', 'must be an absolute http:// or https:// URL'],
    [
      'https://user:secret@93.184.215.14/hook',
      'must not contain a user name or password; verify the webhook signature instead',
    ],
  ])('refuses the url %s, saying why', async (url, message) => {
    const account = await t.newAccount();
    expect(expectValidation(await post(t.app, '/api/v1/webhooks', account.secretKey, { url }), ['url'])).toEqual([
      { field: 'url', message },
    ]);
  });

  it.each([
    ['loopback', 'http://127.0.0.1:8080/hook', '127.0.0.1 is a loopback address (127.0.0.0/8)'],
    ['a private range', 'http://10.0.0.1/hook', '10.0.0.1 is a private address (10.0.0.0/8)'],
    ['another private range', 'http://192.168.1.20/hook', '192.168.1.20 is a private address (192.168.0.0/16)'],
    [
      'the cloud metadata address',
      'http://169.254.169.254/latest/meta-data/',
      '169.254.169.254 is a cloud metadata address (169.254.169.254/32)',
    ],
    ['link-local', 'http://169.254.10.10/', '169.254.10.10 is a link-local address (169.254.0.0/16)'],
    ['carrier-grade NAT', 'http://100.64.1.1/', '100.64.1.1 is a carrier-grade NAT (shared) address (100.64.0.0/10)'],
    ['IPv6 loopback', 'http://[::1]/hook', '::1 is a loopback address (::1/128)'],
    [
      'IPv4-mapped IPv6 loopback',
      'http://[::ffff:127.0.0.1]/hook',
      '::ffff:7f00:1 is a loopback address (127.0.0.0/8)',
    ],
    ['IPv6 unique-local', 'http://[fd00::1]/hook', 'fd00::1 is a unique-local address (fc00::/7)'],
    ['the unspecified address', 'http://0.0.0.0:3000/', '0.0.0.0 is an unspecified address (0.0.0.0/8)'],
    ['a decimal loopback', 'http://2130706433/', '127.0.0.1 is a loopback address (127.0.0.0/8)'],
  ])('refuses %s (%s) at registration', async (_name, url, reason) => {
    const account = await t.newAccount();
    const fields = expectValidation(await post(t.app, '/api/v1/webhooks', account.secretKey, { url }), ['url']);
    expect(fields).toEqual([{ field: 'url', message: `refused: ${reason}; ${PRIVATE_HINT}` }]);
    expect(await webhookState(t, account.id)).toEqual({ endpoints: 0, messages: 0, jobs: 0 });
  });

  it('refuses a host name that resolves to loopback (localhost)', async () => {
    const account = await t.newAccount();
    const [problem] = expectValidation(
      await post(t.app, '/api/v1/webhooks', account.secretKey, { url: 'http://localhost:3000/hook' }),
      ['url'],
    );
    expect(problem!.message).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1) is a loopback address/);
    expect(await webhookState(t, account.id)).toEqual({ endpoints: 0, messages: 0, jobs: 0 });
  });
});
