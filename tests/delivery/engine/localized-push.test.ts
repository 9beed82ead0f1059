import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../harness/requests.ts';
import {
  androidToken,
  iosToken,
  finalNotification as waitForFinal,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/** Localized text end to end: each subscriber's push carries the best match for its locale, on every platform. */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

describe('a localized notification', () => {
  it("gives each subscriber the best variant for its locale: fr-CA, then fr, else the notification's own text", async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const register = async (platform: string, token: unknown, locale?: string) => {
      const response = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode: 'orders',
        platform,
        token,
        ...(locale ? { locale } : {}),
      });
      expect(response.statusCode).toBe(201);
    };
    await register('ios', iosToken(5101), 'fr-CA');
    await register('ios', iosToken(5102), 'fr-BE');
    await register('ios', iosToken(5103), 'de-DE');
    await register('ios', iosToken(5104));
    await register('android', androidToken(5101), 'de-AT');
    const browser = h.webPush.subscribe({ applicationServerKey: h.vapidKeys.publicKey });
    await register('web', browser.json, 'fr');

    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'orders',
      title: 'Order shipped',
      body: 'Arrives Tuesday',
      localizations: {
        fr: { title: 'Commande expédiée', body: 'Arrive mardi' },
        'fr-ca': { title: 'Commande envoyée' },
        de: { title: 'Bestellung versandt', body: 'Kommt am Dienstag' },
      },
    });
    expect(sent.statusCode).toBe(201);
    // Shown back as stored, under canonical tags.
    expect(Object.keys(sent.body.data.localizations)).toEqual(['fr', 'fr-CA', 'de']);
    const final = await waitForFinal(h, account.secretKey, sent.body.data.id);
    expect(final.stats).toMatchObject({ delivered: 6, failed: 0 });

    const alertOf = (n: number) =>
      (h.apns.requests.find((request) => request.token === iosToken(n))!.payload as any).aps.alert;
    // A variant replaces the title and body: fr-CA has no body of its own, and gets none.
    expect(alertOf(5101)).toEqual({ title: 'Commande envoyée' });
    expect(alertOf(5102)).toEqual({ title: 'Commande expédiée', body: 'Arrive mardi' });
    expect(alertOf(5103)).toEqual({ title: 'Bestellung versandt', body: 'Kommt am Dienstag' });
    expect(alertOf(5104)).toEqual({ title: 'Order shipped', body: 'Arrives Tuesday' });
    expect(h.fcm.requests.find((request) => request.target?.value === androidToken(5101))!.message).toMatchObject({
      notification: { title: 'Bestellung versandt', body: 'Kommt am Dienstag' },
    });
    const [message] = h.webPush.messages.filter((candidate) => candidate.subscriptionId === browser.id);
    expect(message!.message).toMatchObject({
      notification: { title: 'Commande expédiée', body: 'Arrive mardi', lang: 'fr' },
    });
    expect(message!.declarative).toMatchObject({ kind: 'declarative' });
  });
});
