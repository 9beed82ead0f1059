import { afterEach, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { iosToken, startDeliveryHarness, type DeliveryHarness } from './delivery-harness.ts';

/** Provider authentication end to end: the APNs token is renewed when it expires, and wrong credentials fail loudly. */
let h: DeliveryHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function sendAndFinish(harness: DeliveryHarness, key: string, channelCode: string) {
  const sent = await post(harness.app, '/api/v1/notifications', key, { channelCode, title: 'Hi' });
  expect(sent.statusCode).toBe(201);
  let data: any;
  await waitFor(
    async () => {
      data = (await get(harness.app, `/api/v1/notifications/${sent.body.data.id}`, key)).body.data;
      return data.status === 'sent' || data.status === 'failed';
    },
    15_000,
    'the notification to finish',
  );
  return data;
}

describe('provider credentials', () => {
  it('renews an expired APNs provider token and retries the push', async () => {
    // The fake accepts tokens for 25 minutes; the client reuses one for 50 unless APNs says it expired.
    h = await startDeliveryHarness({ apns: { providerTokenMaxAgeSeconds: 25 * 60 } });
    const account = await h.newAccount({ channels: ['jwt'] });
    const token = iosToken(6001);
    await post(h.app, '/api/v1/subscribers', account.publishableKey, { channelCode: 'jwt', platform: 'ios', token });
    expect(await sendAndFinish(h, account.secretKey, 'jwt')).toMatchObject({ status: 'sent', stats: { delivered: 1 } });
    const firstIat = h.apns.requests.at(-1)!.jwt!.iat;

    h.clock.advance(30 * 60_000);
    expect(await sendAndFinish(h, account.secretKey, 'jwt')).toMatchObject({ status: 'sent', stats: { delivered: 1 } });
    const attempts = h.apns.requests.slice(-2);
    expect(attempts.map((request) => [request.status, request.reason])).toEqual([
      [403, 'ExpiredProviderToken'],
      [200, null],
    ]);
    expect(attempts[0]!.jwt!.iat).toBe(firstIat);
    expect(attempts[1]!.jwt!.iat).toBe(Math.floor(h.clock.now() / 1000));
  });

  it('fails the batch clearly when APNs does not know the key, and says what to fix', async () => {
    h = await startDeliveryHarness({ apns: { keys: [] } });
    const account = await h.newAccount({ channels: ['badkey'] });
    for (let i = 0; i < 3; i += 1) {
      await post(h.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode: 'badkey',
        platform: 'ios',
        token: iosToken(7000 + i),
      });
    }
    const final = await sendAndFinish(h, account.secretKey, 'badkey');
    expect(final).toMatchObject({ status: 'failed', stats: { delivered: 0, failed: 3, pending: 0 } });
    const failures = await get(h.app, `/api/v1/notifications/${final.id}/failures`, account.secretKey);
    expect(new Set(failures.body.data.map((failure: any) => failure.reason))).toEqual(
      new Set(['apns:InvalidProviderToken']),
    );
    // Nobody is unsubscribed for our own misconfiguration.
    expect((await get(h.app, '/api/v1/channels/badkey', account.secretKey)).body.data.subscriberCount.ios).toBe(3);
    const logged = h.logs.find((line) => line.level === 50 && String(line.msg).includes('whole batch'));
    expect(logged?.fix).toMatch(/CLARION_APNS_KEY_ID/);
  });
});
