import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../harness/requests.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * A Live Activity alert with `localizations` (docs/live-activities.md, "Alerts in other languages"): each device
 * reached per token gets the variant that best matches its subscriber's locale; an APNs broadcast, one payload for every
 * device, carries the alert's own text.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

const alert = {
  title: 'Order shipped',
  body: 'Arrives Tuesday',
  sound: 'default',
  localizations: {
    fr: { title: 'Commande expédiée', body: 'Arrive mardi' },
    'de-de': { title: 'Bestellung versandt' },
  },
};

const alertsOf = (activity: { events: Array<{ event: string; aps: Record<string, unknown> }> }) =>
  activity.events.map((event) => [event.event, event.aps.alert]);

describe('a Live Activity alert in other languages', () => {
  it('reaches each device per token in its subscriber’s language, on iOS, Android and the web', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const french = await h.iosDevice(account, 'orders', { locale: 'fr-CA' });
    const german = await h.iosDevice(account, 'orders', { locale: 'de-DE' });
    const english = await h.iosDevice(account, 'orders');
    const android = await h.androidDevice(account, 'orders', { locale: 'de-DE' });
    const browser = h.webPush.subscribe({ applicationServerKey: h.vapidKeys.publicKey });
    const web = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'orders',
      platform: 'web',
      token: browser.json,
      locale: 'fr',
    });
    expect(web.statusCode).toBe(201);

    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'orders',
      template: 'progress',
      fields: { title: 'Order #42', progress: 0.2 },
      alert,
      delivery: 'tokens',
    });
    expect(started.statusCode).toBe(201);
    // Shown back as stored, under canonical tags.
    expect(started.body.data.alert.localizations).toEqual({
      fr: alert.localizations.fr,
      'de-DE': alert.localizations['de-de'],
    });
    const id = started.body.data.id as string;
    await h.settle();
    await Promise.all([french, german, english].map((device) => h.deviceActivity(device, id)));
    await h.settle();
    const updated = await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
      fields: { progress: 0.6 },
      alert: { title: 'Almost there', localizations: { fr: { title: 'Presque là' } } },
    });
    expect(updated.statusCode).toBe(200);
    await h.settle();

    // A variant replaces title and body (de-DE has no body, and gets none); the sound stays the alert's.
    const inFrench = { title: 'Commande expédiée', body: 'Arrive mardi', sound: 'default' };
    expect(alertsOf(await h.deviceActivity(french, id))).toEqual([
      ['start', inFrench],
      ['update', { title: 'Presque là' }],
    ]);
    expect(alertsOf(await h.deviceActivity(german, id))).toEqual([
      ['start', { title: 'Bestellung versandt', sound: 'default' }],
      ['update', { title: 'Almost there' }],
    ]);
    expect(alertsOf(await h.deviceActivity(english, id))).toEqual([
      ['start', { title: 'Order shipped', body: 'Arrives Tuesday', sound: 'default' }],
      ['update', { title: 'Almost there' }],
    ]);
    expect(h.fcmPushes(android.token).map((request) => JSON.parse((request.message as any).data.alert))).toEqual([
      { title: 'Bestellung versandt', sound: 'default' },
      { title: 'Almost there' },
    ]);
    const shown = h.webPush.messages
      .filter((message) => message.subscriptionId === browser.id)
      .map((message) => (message.message as any).notification.body as string);
    expect(shown).toHaveLength(2);
    expect(shown[0]).toMatch(/^Commande expédiée: Arrive mardi\n/);
    expect(shown[1]).toMatch(/^Presque là\n/);
  });

  it('carries the alert’s own text in a broadcast, while each device’s start is in its language', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    const french = await h.iosDevice(account, 'match', { osVersion: '18.2', locale: 'fr-FR' });
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'progress',
      fields: { title: 'Match', progress: 0 },
      alert,
      delivery: 'broadcast',
    });
    expect(started.statusCode).toBe(201);
    const id = started.body.data.id as string;
    await h.settle();
    await h.deviceActivity(french, id);
    const updated = await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
      fields: { progress: 0.5 },
      alert: { title: 'Half time', localizations: { fr: { title: 'Mi-temps' } } },
    });
    expect(updated.statusCode).toBe(200);
    await h.settle();

    const broadcast = h.apns.requests.filter((request) => request.kind === 'broadcast').at(-1)!;
    expect((broadcast.payload as any).aps.alert).toEqual({ title: 'Half time' });
    expect(alertsOf(await h.deviceActivity(french, id))).toEqual([
      ['start', { title: 'Commande expédiée', body: 'Arrive mardi', sound: 'default' }],
      ['update', { title: 'Half time' }],
    ]);
  });
});
