import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.ts';
import { createFcmServiceAccount, startFakeFcm } from '../../tools/fakes/index.ts';
import { JWT_BEARER, PROJECT, fcmFixture, tokenMessage } from './fcm-fixture.ts';
import { closeAfterTest, h2Request, openSession, postForm } from './h2-test-client.ts';
import { fcmAssertion } from './jwt-signers.ts';

describe('fake FCM: OAuth token endpoint (docs/protocols.md 3.1, 6.2)', () => {
  it('exchanges a valid RS256 assertion for a Bearer access token, over HTTP/1.1 like fetch()', async () => {
    const { fcm, account } = await fcmFixture();
    expect(account.json.token_uri).toBe(`${fcm.url}/token`);
    const response = await postForm(account.json.token_uri, {
      grant_type: JWT_BEARER,
      assertion: await fcmAssertion(account),
    });

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(response.body);
    expect(body).toEqual({ access_token: expect.stringMatching(/^ya29\./), expires_in: 3600, token_type: 'Bearer' });
    const [record] = await fcm.waitForTokenRequests(1);
    expect(record).toMatchObject({
      httpVersion: '1.1',
      grantType: JWT_BEARER,
      status: 200,
      error: null,
      accessToken: body.access_token,
      claims: {
        iss: account.json.client_email,
        aud: account.json.token_uri,
        scope: 'https://www.googleapis.com/auth/firebase.messaging',
        kid: account.json.private_key_id,
      },
    });
  });

  it('also answers over HTTP/2', async () => {
    const { fcm, account, session } = await fcmFixture();
    const form = new URLSearchParams({ grant_type: JWT_BEARER, assertion: await fcmAssertion(account) }).toString();
    const response = await h2Request(
      session,
      { ':path': '/token', 'content-type': 'application/x-www-form-urlencoded' },
      form,
    );
    expect(response.status).toBe(200);
    expect((await fcm.waitForTokenRequests(1))[0]?.httpVersion).toBe('2.0');
  });

  const SHORT_LIVED =
    'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.';

  it.each([
    {
      name: 'an unsupported grant_type',
      form: async () => ({ grant_type: 'client_credentials' }),
      error: 'unsupported_grant_type',
      description: 'Invalid grant_type: client_credentials',
    },
    {
      name: 'no assertion',
      form: async () => ({ grant_type: JWT_BEARER }),
      error: 'invalid_request',
      description: 'Missing required parameter: assertion',
    },
  ])('rejects $name with 400 $error', async ({ form, error, description }) => {
    const { fcm } = await fcmFixture();
    const response = await postForm(fcm.tokenUri, await form());
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ error, error_description: description });
  });

  it('rejects assertions with a bad signature, audience, lifetime or scope', async () => {
    const { fcm, account } = await fcmFixture();
    const now = Math.floor(Date.now() / 1000);
    const impostor = createFcmServiceAccount({
      projectId: PROJECT,
      tokenUri: fcm.tokenUri,
      clientEmail: account.json.client_email,
    });
    impostor.json.private_key_id = account.json.private_key_id;
    const cases = [
      { assertion: await fcmAssertion(impostor), error: 'invalid_grant', description: 'Invalid JWT Signature.' },
      {
        assertion: await fcmAssertion(account, { aud: 'https://oauth2.googleapis.com/token' }),
        error: 'invalid_grant',
        description: expect.stringMatching(/^Invalid JWT: Failed audience check/),
      },
      {
        assertion: await fcmAssertion(account, { iat: now, exp: now + 3601 }),
        error: 'invalid_grant',
        description: SHORT_LIVED,
      },
      {
        assertion: await fcmAssertion(account, { iat: now - 7200, exp: now - 3600 }),
        error: 'invalid_grant',
        description: SHORT_LIVED,
      },
      {
        assertion: await fcmAssertion(account, { scope: 'https://www.googleapis.com/auth/userinfo.email' }),
        error: 'invalid_scope',
        description: 'Invalid OAuth scope or ID token audience provided.',
      },
      {
        assertion: await fcmAssertion(account, { scope: 'openid https://www.googleapis.com/auth/cloud-platform' }),
        error: null,
        description: null,
      },
    ];
    for (const { assertion, error, description } of cases) {
      const response = await postForm(fcm.tokenUri, { grant_type: JWT_BEARER, assertion });
      if (error === null) {
        expect(response.status).toBe(200);
        continue;
      }
      expect(response.status, String(description)).toBe(400);
      expect(JSON.parse(response.body)).toEqual({ error, error_description: description });
    }
  });

  it('rejects an account the fake does not know (wrong credentials) with invalid_grant', async () => {
    const fcm = await startFakeFcm();
    closeAfterTest(() => fcm.close());
    const stranger = createFcmServiceAccount({ projectId: PROJECT, tokenUri: fcm.tokenUri });
    const response = await postForm(fcm.tokenUri, { grant_type: JWT_BEARER, assertion: await fcmAssertion(stranger) });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error).toBe('invalid_grant');
  });

  it('lets access tokens expire after the configured lifetime, so a client must renew', async () => {
    const clock = new ManualClock();
    const { fcm, send, accessToken } = await fcmFixture({ clock, accessTokenLifetimeSeconds: 60 });
    const first = await accessToken();
    expect(fcm.tokenRequests[0]?.status).toBe(200);
    expect((await send(tokenMessage(), { accessToken: first })).status).toBe(200);

    clock.advance(60_000);
    const expired = await send(tokenMessage(), { accessToken: first });
    expect(expired.status).toBe(401);
    expect(JSON.parse(expired.body).error).toMatchObject({
      code: 401,
      status: 'UNAUTHENTICATED',
      details: [{ reason: 'ACCESS_TOKEN_EXPIRED' }],
    });
    expect(expired.headers['www-authenticate']).toContain('invalid_token');

    const renewed = await accessToken();
    expect((await send(tokenMessage(), { accessToken: renewed })).status).toBe(200);
    expect(fcm.tokenRequests).toHaveLength(2);
  });

  it('revokeAccessTokens() invalidates every issued token', async () => {
    const { fcm, send } = await fcmFixture();
    expect((await send(tokenMessage())).status).toBe(200);
    fcm.revokeAccessTokens();
    expect((await send(tokenMessage())).status).toBe(401);
  });

  it('accepts a token_uri naming localhost instead of 127.0.0.1', async () => {
    const fcm = await startFakeFcm();
    closeAfterTest(() => fcm.close());
    const account = createFcmServiceAccount({ projectId: PROJECT, tokenUri: `https://localhost:${fcm.port}/token` });
    fcm.addServiceAccount(account);
    const session = await openSession(`https://localhost:${fcm.port}`);
    const form = new URLSearchParams({ grant_type: JWT_BEARER, assertion: await fcmAssertion(account) }).toString();
    expect(
      (await h2Request(session, { ':path': '/token', 'content-type': 'application/x-www-form-urlencoded' }, form))
        .status,
    ).toBe(200);
  });
});
