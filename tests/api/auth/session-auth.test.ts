import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { randomIp, sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('a dashboard session on the API endpoints', () => {
  it('acts like a secret key for every channel of its account: the same endpoints, the same answers', async () => {
    const user = await signUp(t);
    expectSuccess(
      await sessionCall(t, 'POST', '/api/v1/channels', user, { body: { code: 'news', name: 'News' } }),
      201,
    );
    const subscriber = expectSuccess(
      await sessionCall(t, 'POST', '/api/v1/subscribers', user, {
        body: { channelCode: 'news', platform: 'android', token: tokens.android() },
      }),
      201,
    );
    const sent = expectSuccess(
      await sessionCall(t, 'POST', '/api/v1/notifications', user, { body: { channelCode: 'news', title: 'Hello' } }),
      201,
    );
    expect(sent).toMatchObject({ channelCode: 'news', recipientCount: 1, status: 'queued' });
    expect(expectSuccess(await sessionCall(t, 'GET', `/api/v1/notifications/${sent.id}`, user), 200).id).toBe(sent.id);
    expect(
      expectSuccess(await sessionCall(t, 'GET', '/api/v1/channels/news', user), 200).subscriberCount,
    ).toMatchObject({ total: 1, android: 1 });
    expect(expectSuccess(await sessionCall(t, 'GET', '/api/v1/usage', user), 200)).toMatchObject({
      used: 1,
      limit: 250,
    });
    expectSuccess(await sessionCall(t, 'POST', `/api/v1/subscribers/${subscriber.id}/unsubscribe`, user), 200);
  });

  it('sees only its own account', async () => {
    const user = await signUp(t);
    const other = await t.newAccount({ channels: ['secret-plans'] });
    expectError(await sessionCall(t, 'GET', '/api/v1/channels/secret-plans', user), 'channel_not_found');
    const theirs = await t.app.inject({
      method: 'POST',
      url: '/api/v1/notifications',
      headers: { authorization: `Bearer ${other.secretKey}`, 'content-type': 'application/json' },
      payload: '{"channelCode":"secret-plans","title":"x"}',
    });
    expectError(
      await sessionCall(t, 'GET', `/api/v1/notifications/${JSON.parse(theirs.body).data.id}`, user),
      'not_found',
    );
  });

  it('lets an Authorization header win over the cookie: a bad key is refused even with a good session', async () => {
    const user = await signUp(t);
    const response = await sessionCall(t, 'GET', '/api/v1/channels', user, {
      headers: { authorization: 'Bearer clr_sk_nope' },
    });
    expectError(response, 'unauthorized');
  });

  it('refuses a malformed or unknown session cookie with 401, and tells the browser to drop it', async () => {
    for (const cookie of [
      'clarion_session=',
      'clarion_session=short',
      `clarion_session=${'A'.repeat(43)}`,
      'other=1; clarion_session=%00',
    ]) {
      const response = await sessionCall(t, 'GET', '/api/v1/usage', { cookie, csrfToken: '', ip: randomIp() });
      expect(expectError(response, 'unauthorized').message, cookie).toMatch(/session has ended/);
      expect(response.headers['set-cookie']).toMatch(/^clarion_session=; .*Max-Age=0/);
    }
  });

  it('reads the session cookie among other cookies', async () => {
    const user = await signUp(t);
    const response = await sessionCall(t, 'GET', '/api/v1/usage', {
      ...user,
      cookie: `theme=dark; ${user.cookie}; lang=en`,
    });
    expect(response.statusCode).toBe(200);
  });

  it('applies the per-caller rate limit to sessions too', async () => {
    const limited = await startTestApp({ rateLimitPerSecond: 1, rateLimitBurst: 2 });
    try {
      const user = await signUp(limited);
      await sessionCall(limited, 'GET', '/api/v1/usage', user);
      await sessionCall(limited, 'GET', '/api/v1/usage', user);
      const response = await sessionCall(limited, 'GET', '/api/v1/usage', user);
      expectError(response, 'rate_limited');
    } finally {
      await limited.close();
    }
  });
});
