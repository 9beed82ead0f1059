import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.ts';
import { createApnsSigningKey, startFakeApns } from '../../tools/fakes/index.ts';
import { ALERT, BUNDLE, DEVICE, apnsFixture } from './apns-fixture.ts';
import { closeAfterTest, h2Request, openSession } from './h2-test-client.ts';
import { apnsProviderToken } from './jwt-signers.ts';

describe('fake APNs: provider token (docs/protocols.md 1.2, 6.1)', () => {
  it('accepts a valid push: 200, empty body, apns-id echoed, apns-unique-id in sandbox, and records it', async () => {
    const { apns, push, key } = await apnsFixture();
    const apnsId = randomUUID();
    const response = await push(DEVICE, { 'apns-id': apnsId, 'apns-priority': '10', 'apns-collapse-id': 'score' });

    expect(response.status).toBe(200);
    expect(response.body).toBe('');
    expect(response.headers['apns-id']).toBe(apnsId);
    expect(response.headers['apns-unique-id']).toMatch(/^[0-9a-f-]{36}$/);
    const [record] = await apns.waitForRequests(1);
    expect(record).toMatchObject({
      token: DEVICE,
      topic: BUNDLE,
      pushType: 'alert',
      priority: 10,
      collapseId: 'score',
      status: 200,
      reason: null,
      apnsId,
      payload: JSON.parse(ALERT),
      jwt: { kid: key.keyId, iss: key.teamId },
      sessionId: 1,
      answered: true,
    });
    expect(apns.sessions[0]?.teamId).toBe(key.teamId);
  });

  it('generates a UUID apns-id when the request has none, and no apns-unique-id in production', async () => {
    const { push } = await apnsFixture({ environment: 'production' });
    const response = await push();
    expect(response.status).toBe(200);
    expect(response.headers['apns-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(response.headers['apns-unique-id']).toBeUndefined();
  });

  it('answers 403 MissingProviderToken without an authorization header', async () => {
    const { session } = await apnsFixture();
    const response = await h2Request(session, { ':path': `/3/device/${DEVICE}`, 'apns-topic': BUNDLE }, ALERT);
    expect(response.status).toBe(403);
    expect(response.body).toBe('{"reason":"MissingProviderToken"}');
    expect(response.headers['apns-id']).toBeDefined();
  });

  it('answers 403 InvalidProviderToken when the fake does not know the key (wrong credentials)', async () => {
    const key = createApnsSigningKey();
    const apns = await startFakeApns({ keys: [] });
    closeAfterTest(() => apns.close());
    const session = await openSession(apns.url);
    const response = await h2Request(
      session,
      { ':path': `/3/device/${DEVICE}`, authorization: `bearer ${await apnsProviderToken(key)}`, 'apns-topic': BUNDLE },
      ALERT,
    );
    expect(response.status).toBe(403);
    expect(response.body).toBe('{"reason":"InvalidProviderToken"}');
  });

  it('answers 403 InvalidProviderToken for a bad signature, another algorithm, or the wrong team', async () => {
    const { push, key } = await apnsFixture();
    const impostor = createApnsSigningKey({ keyId: key.keyId, teamId: key.teamId });
    const hs256 = await new SignJWT({ iss: key.teamId, iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ alg: 'HS256', kid: key.keyId })
      .sign(new TextEncoder().encode('x'.repeat(32)));
    for (const jwt of [
      await apnsProviderToken(impostor),
      hs256,
      await apnsProviderToken(key, { iss: 'OTHERTEAM1' }),
      'not-a-jwt',
    ]) {
      const response = await push(DEVICE, { authorization: `bearer ${jwt}` });
      expect(response.status, jwt).toBe(403);
      expect(response.body).toBe('{"reason":"InvalidProviderToken"}');
    }
  });

  it('answers 403 ExpiredProviderToken when iat is more than an hour old', async () => {
    const { push, key } = await apnsFixture();
    const old = await apnsProviderToken(key, { iat: Math.floor(Date.now() / 1000) - 3601 });
    const response = await push(DEVICE, { authorization: `bearer ${old}` });
    expect(response.status).toBe(403);
    expect(response.body).toBe('{"reason":"ExpiredProviderToken"}');
  });

  it('answers 429 TooManyProviderTokenUpdates for a newer token of a key within 20 minutes, on any connection', async () => {
    const clock = new ManualClock();
    const { push, key, apns, jwt } = await apnsFixture({ clock });
    const second = (offsetSeconds: number) =>
      apnsProviderToken(key, { iat: Math.floor(clock.now() / 1000) + offsetSeconds });
    expect((await push()).status).toBe(200);

    clock.advance(10 * 60_000);
    const early = await push(DEVICE, { authorization: `bearer ${await second(0)}` });
    expect(early.status).toBe(429);
    expect(early.body).toBe('{"reason":"TooManyProviderTokenUpdates"}');

    // A fresh connection changes nothing: the rule is the key's ("refresh your token no more than once every 20 minutes").
    const other = await openSession(apns.url);
    const fresh = await h2Request(
      other,
      { ':path': `/3/device/${DEVICE}`, authorization: `bearer ${await second(0)}`, 'apns-topic': BUNDLE },
      ALERT,
    );
    expect(fresh.status).toBe(429);
    // The token in use keeps working everywhere.
    expect(
      (
        await h2Request(
          other,
          { ':path': `/3/device/${DEVICE}`, authorization: `bearer ${jwt}`, 'apns-topic': BUNDLE },
          ALERT,
        )
      ).status,
    ).toBe(200);

    clock.advance(10 * 60_000);
    const renewed = await second(0);
    expect((await push(DEVICE, { authorization: `bearer ${renewed}` })).status).toBe(200);
    expect(
      (
        await h2Request(
          other,
          { ':path': `/3/device/${DEVICE}`, authorization: `bearer ${renewed}`, 'apns-topic': BUNDLE },
          ALERT,
        )
      ).status,
    ).toBe(200);
  });

  it('makes the refresh interval configurable', async () => {
    const clock = new ManualClock();
    const { push, key } = await apnsFixture({ clock, providerTokenMinRefreshSeconds: 60 });
    expect((await push()).status).toBe(200);
    clock.advance(61_000);
    const next = await apnsProviderToken(key, { iat: Math.floor(clock.now() / 1000) });
    expect((await push(DEVICE, { authorization: `bearer ${next}` })).status).toBe(200);
  });

  it('binds a connection to one team: another team → InvalidProviderToken, an unrelated key → UnrelatedKeyIdInToken', async () => {
    const first = createApnsSigningKey();
    const otherTeam = createApnsSigningKey();
    const unrelated = createApnsSigningKey({ teamId: first.teamId });
    const related = { ...createApnsSigningKey({ teamId: first.teamId }), relatedKeyId: first.keyId };
    const apns = await startFakeApns({ keys: [first, otherTeam, unrelated, related] });
    closeAfterTest(() => apns.close());
    const session = await openSession(apns.url);
    const send = async (key: typeof first) =>
      h2Request(
        session,
        {
          ':path': `/3/device/${DEVICE}`,
          authorization: `bearer ${await apnsProviderToken(key)}`,
          'apns-topic': BUNDLE,
        },
        ALERT,
      );

    expect((await send(first)).status).toBe(200);
    expect((await send(otherTeam)).body).toBe('{"reason":"InvalidProviderToken"}');
    const unrelatedResponse = await send(unrelated);
    expect(unrelatedResponse.status).toBe(403);
    expect(unrelatedResponse.body).toBe('{"reason":"UnrelatedKeyIdInToken"}');
    expect((await send(related)).status).toBe(200);
  });

  it('answers 403 BadEnvironmentKeyIdInToken for a key of the other environment', async () => {
    const key = { ...createApnsSigningKey(), environment: 'production' as const };
    const apns = await startFakeApns({ keys: [key], environment: 'sandbox' });
    closeAfterTest(() => apns.close());
    const session = await openSession(apns.url);
    const response = await h2Request(
      session,
      { ':path': `/3/device/${DEVICE}`, authorization: `bearer ${await apnsProviderToken(key)}`, 'apns-topic': BUNDLE },
      ALERT,
    );
    expect(response.status).toBe(403);
    expect(response.body).toBe('{"reason":"BadEnvironmentKeyIdInToken"}');
  });

  it('answers 403 InvalidProviderToken for a topic the key does not cover', async () => {
    const { push } = await apnsFixture();
    const response = await push(DEVICE, { 'apns-topic': 'com.example.someone-else' });
    expect(response.status).toBe(403);
    expect(response.body).toBe('{"reason":"InvalidProviderToken"}');
  });
});
