import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApnsClient } from '../../src/delivery/apns/apns-client.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { blankContent } from '../../src/domain/notification-content.ts';
import type { PushContent } from '../../src/delivery/push-content.ts';
import { createApnsSigningKey, startFakeApnsHosts, type FakeApnsHosts } from '../../tools/fakes/index.ts';
import { h2Request, openSession } from './h2-test-client.ts';
import { apnsProviderToken } from './jwt-signers.ts';

/** The sandbox and production fakes: each accepts its own tokens and answers BadDeviceToken to the other's, like Apple. */
const key = createApnsSigningKey();
const TOPIC = 'com.example.hosts';
const token = (n: number) => n.toString(16).padStart(64, '0');
const content: PushContent = {
  ...blankContent,
  notificationId: 'ntf_01jf3z5y8k9q2w4e6r8t0y2u4i',
  title: 'Hi',
  body: null,
  ttlSeconds: 60,
};
let hosts: FakeApnsHosts;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  hosts = await startFakeApnsHosts({ keys: [key], topics: [TOPIC], clock, issuedTokensOnly: true });
});
afterAll(async () => hosts?.close());

describe('fake APNs hosts', () => {
  it('refuse each other’s tokens and made-up ones with 400 BadDeviceToken', async () => {
    hosts.issueToken(token(1), 'sandbox');
    hosts.issueToken(token(2), 'production');
    const options = { keyPem: key.privateKeyPem, keyId: key.keyId, teamId: key.teamId, topic: TOPIC, clock };
    const production = createApnsClient({ ...options, url: hosts.production.url });
    const sandbox = createApnsClient({ ...options, url: hosts.sandbox.url });
    try {
      expect(await production.send(token(2), content)).toEqual({ kind: 'delivered' });
      expect(await sandbox.send(token(1), content)).toEqual({ kind: 'delivered' });
      expect(await production.send(token(1), content)).toMatchObject({
        kind: 'token_dead',
        providerReason: 'BadDeviceToken',
      });
      expect(await sandbox.send(token(2), content)).toMatchObject({
        kind: 'token_dead',
        providerReason: 'BadDeviceToken',
      });
      expect(await sandbox.send(token(3), content)).toMatchObject({
        kind: 'token_dead',
        providerReason: 'BadDeviceToken',
      });
      expect(hosts.production.requests.map((r) => [r.token, r.status])).toEqual([
        [token(2), 200],
        [token(1), 400],
      ]);
      expect(hosts.sandbox.environment).toBe('sandbox');
    } finally {
      await Promise.all([production.close(), sandbox.close()]);
    }
  });

  it('hold a key to one new provider token per 20 minutes across both hosts', async () => {
    hosts.issueToken(token(4), 'production');
    hosts.issueToken(token(5), 'sandbox');
    const push = async (url: string, device: string, jwt: string) => {
      const session = await openSession(url);
      const body = JSON.stringify({ aps: { alert: 'hi' } });
      return h2Request(
        session,
        {
          ':path': `/3/device/${device}`,
          authorization: `bearer ${jwt}`,
          'apns-topic': TOPIC,
          'apns-push-type': 'alert',
        },
        body,
      );
    };
    const iat = () => Math.floor(clock.now() / 1000);
    const first = await apnsProviderToken(key, { iat: iat() });
    expect((await push(hosts.production.url, token(4), first)).status).toBe(200);
    clock.advance(5 * 60_000);
    const early = await push(hosts.sandbox.url, token(5), await apnsProviderToken(key, { iat: iat() }));
    expect([early.status, early.body]).toEqual([429, '{"reason":"TooManyProviderTokenUpdates"}']);
    expect((await push(hosts.sandbox.url, token(5), first)).status).toBe(200);
    clock.advance(15 * 60_000);
    expect((await push(hosts.sandbox.url, token(5), await apnsProviderToken(key, { iat: iat() }))).status).toBe(200);
  });
});
