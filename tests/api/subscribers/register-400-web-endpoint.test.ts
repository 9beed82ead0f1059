import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectValidation } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

/** The SSRF guard on a web subscription's endpoint at registration (docs/web-push.md, "Endpoint safety"). */
let strict: TestApp;
let allowing: TestApp;
let allowingByOldName: TestApp;
beforeAll(async () => {
  strict = await startTestApp({ allowPrivateAddresses: false, allowPrivateWebhooks: false });
  allowing = await startTestApp({ allowPrivateAddresses: true });
  allowingByOldName = await startTestApp({ allowPrivateWebhooks: true });
});
afterAll(async () => Promise.all([strict.close(), allowing.close(), allowingByOldName.close()]));

const withEndpoint = (endpoint: string) => ({
  channelCode: 'news',
  platform: 'web',
  token: { ...tokens.web(), endpoint },
});

describe('POST /api/v1/subscribers → 400 for a web endpoint on a private address', () => {
  it.each([
    ['IPv4 loopback', 'https://127.0.0.1:8443/push/abc', /127\.0\.0\.1 is a loopback address/],
    ['IPv6 loopback', 'https://[::1]/push/abc', /::1 is a loopback address/],
    ['a private network', 'https://10.1.2.3/push/abc', /a private address/],
    ['the cloud metadata address', 'https://169.254.169.254/latest', /a cloud metadata address/],
    ['a name that resolves to loopback', 'https://localhost/push/abc', /localhost resolves to .* loopback/],
  ])('refuses %s, naming token.endpoint, and stores nothing', async (_what, endpoint, message) => {
    const account = await strict.newAccount({ channels: ['news'] });
    const before = await accountState(strict, account.id);
    const [problem] = expectValidation(
      await post(strict.app, '/api/v1/subscribers', account.publishableKey, withEndpoint(endpoint)),
      ['token.endpoint'],
    );
    expect(problem!.message).toMatch(message);
    expect(problem!.message).toContain('CLARION_ALLOW_PRIVATE_ADDRESSES=true');
    expect(await accountState(strict, account.id)).toEqual(before);
  });

  it('accepts the same endpoints when the operator allows private addresses (either name of the setting)', async () => {
    for (const t of [allowing, allowingByOldName]) {
      const account = await t.newAccount({ channels: ['news'] });
      const response = await post(
        t.app,
        '/api/v1/subscribers',
        account.publishableKey,
        withEndpoint('https://127.0.0.1:8443/push/abc'),
      );
      expect(response.statusCode).toBe(201);
    }
  });

  it('accepts a public name that does not resolve right now: the send-time guard checks it again', async () => {
    const account = await strict.newAccount({ channels: ['news'] });
    const response = await post(
      strict.app,
      '/api/v1/subscribers',
      account.publishableKey,
      withEndpoint('https://push.example.net/send/abc'),
    );
    expect(response.statusCode).toBe(201);
  });
});
