import { freePort } from '../harness/free-port.ts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../src/store/events-queries.ts';
import { findSubscriber } from '../../src/store/subscribers-queries.ts';
import { parseDeclarativePushMessage, type FakeSubscription } from '../../tools/fakes/index.ts';
import { startDeliveryHarness, type DeliveryHarness } from '../delivery/engine/delivery-harness.ts';
import { SCREENSHOTS, startBrowserOn, seeText } from '../harness/browser.ts';
import { accountSlug, switchJoinPage } from '../harness/join-pages.ts';
import {
  clickNotification,
  deliverPush,
  injectPushManager,
  serviceWorkerAt,
  shownNotifications,
  subscribeCalls,
} from '../harness/push-browser.ts';
import { post } from '../harness/requests.ts';
import type { TestAccount } from '../harness/test-app.ts';
import { testDialect } from '../harness/test-dialect.ts';
import { eventually } from '../harness/wait-for.ts';

/**
 * The public join page and the service worker in headless Chromium, end to end: the real app on a random port with
 * its delivery worker, and the fake push service (tools/fakes/web-push/). The subscription the page gets is a
 * simulated browser's at the fake; what Clarion sends there is decrypted by the fake and handed to the page's real
 * service worker as the push event's data (tests/harness/push-browser.ts explains what is injected and what is
 * Chromium's own).
 */
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

let t: DeliveryHarness;
let base: string;
let browser: Browser;

beforeAll(async () => {
  // The service worker reports receipts to CLARION_BASE_URL (docs/engagement.md): the address the app listens on.
  const port = await freePort();
  t = await startDeliveryHarness({ configure: { baseUrl: `http://127.0.0.1:${port}` } });
  ({ base, browser } = await startBrowserOn(t.app, port));
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A browser's subscription at the fake push service, made with the instance's VAPID key as pushManager.subscribe() would. */
const fakeSubscription = () => t.webPush.subscribe({ applicationServerKey: t.vapidKeys.publicKey });

/** The clear text of the next push Clarion sent to this subscription, as the fake push service decrypted it. */
async function nextPushTo(subscription: FakeSubscription, already: number): Promise<string> {
  const record = await t.webPush.waitForMessage(
    (message) =>
      message.subscriptionId === subscription.id &&
      message.status === 201 &&
      t.webPush.messages.filter((other) => other.subscriptionId === subscription.id).indexOf(message) >= already,
    15_000,
  );
  return record.clearText!;
}

/** A notification's delivery and engagement counts (its `stats`), as the account reads them. */
async function statsOf(account: TestAccount, notificationId: string): Promise<Record<string, unknown>> {
  const response = await t.app.inject({
    url: `/api/v1/notifications/${notificationId}`,
    headers: { authorization: `Bearer ${account.secretKey}` },
  });
  return response.json().data.stats;
}

interface JoinPage {
  account: TestAccount;
  path: string;
  context: BrowserContext;
  page: Page;
  errors: string[];
}

/** A channel with its join page on, and a browser tab (notifications allowed) on the page. */
async function openJoinPage(
  options: {
    userAgent?: string;
    beforeLoad?: (context: BrowserContext) => Promise<unknown>;
    /** The channel is bound to an app of the account (docs/apps.md), which signs its pushes with its own VAPID key. */
    boundToApp?: boolean;
  } = {},
): Promise<JoinPage> {
  const account = await t.newAccount(options.boundToApp ? {} : { channels: ['news'] });
  if (options.boundToApp) {
    expect((await post(t.app, '/api/v1/apps', account.secretKey, { name: 'Newsroom' })).statusCode).toBe(201);
    // A channel made once the account has an app takes that app.
    const channel = await post(t.app, '/api/v1/channels', account.secretKey, { code: 'news', name: 'News' });
    expect(channel.body.data.appId).toEqual(expect.stringMatching(/^app_/));
  }
  await t.app.inject({
    method: 'POST',
    url: '/api/v1/channels/news/update',
    headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
    payload: { name: 'Morning news', description: 'The headlines, every morning at 7.' },
  });
  await switchJoinPage(t, account, 'news', true);
  const path = `/join/${await accountSlug(t, account.id)}/news`;
  const context = await browser.newContext({
    viewport: { width: 420, height: 800 },
    ...(options.userAgent ? { userAgent: options.userAgent } : {}),
  });
  await context.grantPermissions(['notifications'], { origin: base });
  await options.beforeLoad?.(context);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${base}${path}`);
  await page.getByRole('heading', { level: 1, name: 'Morning news' }).waitFor();
  return { account, path, context, page, errors };
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `${SCREENSHOTS}/${testDialect}-join-${name}.png`, fullPage: true });

describe('the join page in Chromium', { timeout: 90_000 }, () => {
  it('subscribes this browser with the VAPID key and registers it; a notification sent to the channel reaches its service worker; unsubscribes', async () => {
    const publicKey = t.vapidKeys.publicKey;
    const subscription = fakeSubscription();
    const { account, path, context, page, errors } = await openJoinPage({
      beforeLoad: (ctx) => injectPushManager(ctx, subscription.json),
    });
    await seeText(page.locator('.description'), 'The headlines, every morning at 7.');
    await shot(page, '01-page');

    await page.getByRole('button', { name: 'Get notifications' }).click();
    await seeText(page.getByRole('status'), 'Done: this browser will get notifications from this channel.');
    await page.getByRole('button', { name: 'Stop notifications' }).waitFor();
    await shot(page, '02-subscribed');

    // The page subscribed with the instance's VAPID key, for visible notifications only…
    expect(await subscribeCalls(page)).toEqual([{ userVisibleOnly: true, applicationServerKey: publicKey }]);
    // …and registered PushSubscription.toJSON() as a web subscriber of this channel, with the browser's zone and language.
    const subscriberId = await page.evaluate(() =>
      (globalThis as any).localStorage.getItem(
        Object.keys((globalThis as any).localStorage).find((key: string) => key.startsWith('clarion:'))!,
      ),
    );
    const subscriber = (await findSubscriber(t.store.db, account.id, subscriberId))!;
    expect(subscriber).toMatchObject({ account_id: account.id, platform: 'web', status: 'active', locale: 'en-US' });
    expect(JSON.parse(subscriber.token)).toEqual(subscription.json);
    expect(subscriber.timezone).toEqual(expect.any(String));

    // One notification to the channel: the worker encrypts it for this browser and the fake push service decrypts it…
    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Storm warning',
      body: 'Stay inside tonight.',
      url: 'https://news.example/storm',
      data: { story: '42' },
    });
    expect(sent.statusCode).toBe(201);
    const notificationId = sent.body.data.id as string;
    const clearText = await nextPushTo(subscription, 0);
    // A declarative push message, which Safari can show by itself and the service worker shows everywhere else.
    expect(parseDeclarativePushMessage(JSON.parse(clearText))).toEqual({
      kind: 'declarative',
      message: {
        notification: {
          title: 'Storm warning',
          body: 'Stay inside tonight.',
          navigate: 'https://news.example/storm',
          tag: notificationId,
          data: { clarion: true, data: { story: '42' } },
        },
        appBadge: null,
        mutable: true,
      },
    });
    // …and the page's own service worker, scoped to the page, shows it.
    const scope = `${base}${path}`;
    const worker = await serviceWorkerAt(context, `${base}/sdk/clarion-sw.js`);
    await deliverPush(page, scope, clearText, notificationId);
    expect(await shownNotifications(page, scope)).toEqual([
      {
        title: 'Storm warning',
        body: 'Stay inside tonight.',
        tag: notificationId,
        icon: '',
        renotify: false,
        data: {
          clarion: true,
          url: 'https://news.example/storm',
          data: { story: '42' },
          receipt: expect.stringMatching(/^n/),
        },
      },
    ]);
    await shot(page, '02b-notification-shown');
    // A click opens its url (no window shows it yet).
    expect(await clickNotification(worker, notificationId, [`${base}${path}`])).toEqual({
      closed: true,
      focused: [],
      opened: ['https://news.example/storm'],
    });
    // The worker reported the push's receipt when it showed it and when it was clicked (docs/engagement.md).
    await eventually(async () =>
      expect(await statsOf(account, notificationId)).toMatchObject({
        delivered: 1,
        received: 1,
        opened: 1,
        byPlatform: { web: { received: 1, opened: 1 } },
      }),
    );

    // Reloaded, the page remembers; "Stop notifications" unsubscribes the subscriber.
    await page.reload();
    await page.getByRole('button', { name: 'Stop notifications' }).click();
    await seeText(page.getByRole('status'), 'Stopped');
    await page.getByRole('button', { name: 'Get notifications' }).waitFor();
    await eventually(async () =>
      expect((await findSubscriber(t.store.db, account.id, subscriberId))!.status).toBe('unsubscribed'),
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows a notification's action buttons; a click on one opens its own url, or nothing, and reports the action", async () => {
    const subscription = fakeSubscription();
    const { account, path, context, page, errors } = await openJoinPage({
      beforeLoad: (ctx) => injectPushManager(ctx, subscription.json),
    });
    await page.getByRole('button', { name: 'Get notifications' }).click();
    await seeText(page.getByRole('status'), 'Done: this browser will get notifications from this channel.');
    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Deploy v42 to production?',
      url: 'https://ci.example/deploys/42',
      actions: [
        { id: 'approve', title: 'Approve' },
        { id: 'logs', title: 'Logs', url: 'https://ci.example/deploys/42/logs' },
      ],
    });
    expect(sent.statusCode).toBe(201);
    const notificationId = sent.body.data.id as string;
    const clearText = await nextPushTo(subscription, 0);
    const scope = `${base}${path}`;
    const worker = await serviceWorkerAt(context, `${base}/sdk/clarion-sw.js`);
    await deliverPush(page, scope, clearText, notificationId);
    const [shown] = await shownNotifications(page, scope);
    expect(shown!.actions).toEqual([
      { action: 'approve', title: 'Approve' },
      { action: 'logs', title: 'Logs' },
    ]);
    // "Logs" opens its own url, not the notification's.
    expect(await clickNotification(worker, notificationId, [], 'logs')).toEqual({
      closed: true,
      focused: [],
      opened: ['https://ci.example/deploys/42/logs'],
    });
    // "Approve" has none: nothing opens, the report is what acts on it (the notification.action webhook).
    await deliverPush(page, scope, clearText, notificationId);
    expect(await clickNotification(worker, notificationId, [], 'approve')).toEqual({
      closed: true,
      focused: [],
      opened: [],
    });
    await eventually(async () =>
      expect(await statsOf(account, notificationId)).toMatchObject({ received: 1, opened: 0, actions: 1 }),
    );
    const tapped = (await listEvents(t.store.db, account.id)).filter((event) => event.type === 'notification.action');
    expect(tapped.map((event) => (event.data as any).actionId)).toEqual(['logs']);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("on a channel bound to an app, subscribes with that app's VAPID key, and the next send reaches this browser", async () => {
    // Every subscription the page makes is bound, at the fake push service, to the key the page passed, as a real
    // push service binds it; a push signed with another key is refused there with 403.
    const minted: FakeSubscription[] = [];
    const { account, page, context, errors } = await openJoinPage({
      boundToApp: true,
      beforeLoad: (ctx) =>
        injectPushManager(ctx, (applicationServerKey) => {
          minted.push(t.webPush.subscribe({ applicationServerKey }));
          return minted.at(-1)!.json;
        }),
    });
    const [app] = (
      await t.app.inject({ url: '/api/v1/apps', headers: { authorization: `Bearer ${account.secretKey}` } })
    ).json().data;
    await page.getByRole('button', { name: 'Get notifications' }).click();
    await seeText(page.getByRole('status'), 'Done: this browser will get notifications from this channel.');
    expect(await subscribeCalls(page)).toEqual([
      { userVisibleOnly: true, applicationServerKey: app.web.vapidPublicKey },
    ]);
    expect(app.web.vapidPublicKey).not.toBe(t.vapidKeys.publicKey);

    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hello' });
    expect(sent.statusCode).toBe(201);
    // The push service took it (201, not 403) and it decrypts for this browser; the subscriber stays subscribed.
    expect(JSON.parse(await nextPushTo(minted[0]!, 0))).toMatchObject({
      web_push: 8030,
      notification: { title: 'Hello', tag: sent.body.data.id },
    });
    await eventually(async () =>
      expect(
        (
          await t.app.inject({
            url: `/api/v1/notifications/${sent.body.data.id}`,
            headers: { authorization: `Bearer ${account.secretKey}` },
          })
        ).json().data,
      ).toMatchObject({ status: 'sent', stats: { delivered: 1, failed: 0 } }),
    );
    const [subscriber] = await t.store.db
      .selectFrom('subscribers')
      .selectAll()
      .where('account_id', '=', account.id)
      .execute();
    expect(subscriber).toMatchObject({ platform: 'web', status: 'active' });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows a Live Activity's start and update as one notification replaced in place; a click focuses an open window of its url, else opens one", async () => {
    const subscription = fakeSubscription();
    const { account, path, context, page } = await openJoinPage({
      beforeLoad: (ctx) => injectPushManager(ctx, subscription.json),
    });
    await page.getByRole('button', { name: 'Get notifications' }).click();
    await seeText(page.getByRole('status'), 'Done');
    const scope = `${base}${path}`;
    const worker = await serviceWorkerAt(context, `${base}/sdk/clarion-sw.js`);

    const started = await post(t.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'news',
      template: 'progress',
      fields: { title: 'Order #42', progress: 0.45, status: 'Packing' },
    });
    expect(started.statusCode).toBe(201);
    const activityId = started.body.data.id as string;
    await deliverPush(page, scope, await nextPushTo(subscription, 0), activityId);
    // The start alerts (renotify); the silent update that follows replaces it without alerting.
    expect(
      (await shownNotifications(page, scope)).map((shown) => [shown.tag, shown.title, shown.body, shown.renotify]),
    ).toEqual([[activityId, 'Order #42', '▓▓▓▓▓░░░░░\n45 % · Packing', true]]);
    t.clock.advance(1000);
    expect(
      (
        await post(t.app, `/api/v1/live-activities/${activityId}/update`, account.secretKey, {
          fields: { progress: 0.8, status: 'On its way' },
        })
      ).statusCode,
    ).toBe(200);
    await deliverPush(page, scope, await nextPushTo(subscription, 1), {
      tag: activityId,
      body: '▓▓▓▓▓▓▓▓░░\n80 % · On its way',
    });
    await eventually(async () =>
      expect((await shownNotifications(page, scope)).map((shown) => [shown.body, shown.renotify])).toEqual([
        ['▓▓▓▓▓▓▓▓░░\n80 % · On its way', false],
      ]),
    );
    await shot(page, '02c-live-activity');

    // A window showing the url (another #fragment is the same page) is focused, not opened again.
    await deliverPush(
      page,
      scope,
      JSON.stringify({
        title: 'Order #42',
        body: 'Delivered',
        tag: 'ntf_01horder',
        url: 'https://shop.example/orders/42',
      }),
      'ntf_01horder',
    );
    expect(
      await clickNotification(worker, 'ntf_01horder', [
        'https://shop.example/',
        'https://shop.example/orders/42#items',
      ]),
    ).toEqual({
      closed: true,
      focused: ['https://shop.example/orders/42#items'],
      opened: [],
    });

    await deliverPush(
      page,
      scope,
      JSON.stringify({ title: 'New', body: 'Story', tag: 'ntf_01hnew', url: 'https://news.example/new' }),
      'ntf_01hnew',
    );
    expect(await clickNotification(worker, 'ntf_01hnew', ['https://shop.example/'])).toEqual({
      closed: true,
      focused: [],
      opened: ['https://news.example/new'],
    });

    // Without a url, a click opens the worker's scope: the join page itself. A push that is not JSON shows its text.
    await deliverPush(page, scope, 'plain text, not JSON', '');
    const plain = (await shownNotifications(page, scope)).find((shown) => shown.body === 'plain text, not JSON');
    expect(plain).toMatchObject({ title: '', data: { clarion: true, url: null } });
    // A declarative message must name a page to open (navigate): for a notification without a url it is the
    // instance's address, and notification.data says there is no url, so the worker opens its scope instead.
    const noLink = {
      web_push: 8030,
      notification: {
        title: 'No link',
        navigate: 'https://push.example.com/',
        tag: 'ntf_01hnolink',
        data: { clarion: true, url: null },
      },
      mutable: true,
    };
    await deliverPush(page, scope, JSON.stringify(noLink), 'ntf_01hnolink');
    expect((await clickNotification(worker, 'ntf_01hnolink', [])).opened).toEqual([scope]);
    // The flat message Clarion sent before (a push may wait at the push service for 28 days) is read too.
    await deliverPush(page, scope, JSON.stringify({ title: 'Old form', tag: 'ntf_01holdform' }), 'ntf_01holdform');
    expect((await clickNotification(worker, 'ntf_01holdform', [])).opened).toEqual([scope]);
    await context.close();
  });

  it('on an iPhone outside a Home Screen app, explains Add to Home Screen instead of the button, and links the manifest', async () => {
    const { page, errors, context } = await openJoinPage({ userAgent: IPHONE });
    await page.getByRole('heading', { name: 'On iPhone and iPad, add this page to your Home Screen first' }).waitFor();
    expect(await page.getByRole('button', { name: 'Get notifications' }).isVisible()).toBe(false);
    await seeText(page.getByRole('listitem'), 'Add to Home Screen');
    const manifest = await page.evaluate(async () =>
      (await fetch((globalThis as any).document.querySelector('link[rel=manifest]').href)).json(),
    );
    expect(manifest).toMatchObject({ name: 'Morning news', display: 'standalone' });
    await shot(page, '03-iphone');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('in the Home Screen app on iOS, offers the button', async () => {
    const { page, context } = await openJoinPage({
      userAgent: IPHONE,
      beforeLoad: (ctx) =>
        ctx.addInitScript(() => Object.defineProperty((globalThis as any).navigator, 'standalone', { value: true })),
    });
    await page.getByRole('button', { name: 'Get notifications' }).waitFor();
    expect(await page.getByRole('heading', { name: /Home Screen first/ }).isVisible()).toBe(false);
    await context.close();
  });

  it('says so in a browser without Web Push', async () => {
    const { page, context } = await openJoinPage({
      beforeLoad: (ctx) => ctx.addInitScript(() => delete (globalThis as any).PushManager),
    });
    await seeText(page.locator('#unsupported'), 'This browser cannot receive web notifications');
    expect(await page.getByRole('button', { name: 'Get notifications' }).isVisible()).toBe(false);
    await context.close();
  });

  it('says when the browser has no push service, rather than blaming a permission the person gave', async () => {
    // Notifications allowed, and Chromium's own PushManager, which here reaches no push service.
    const { page, context } = await openJoinPage();
    await page.getByRole('button', { name: 'Get notifications' }).click();
    await seeText(page.getByRole('status'), 'This browser has no push service to deliver notifications through');
    expect(await page.getByRole('status').textContent()).not.toMatch(/blocked|not allowed/i);
    await context.close();
  });

  it('explains a refused permission', async () => {
    const { page, context } = await openJoinPage({ beforeLoad: async (ctx) => ctx.clearPermissions() });
    // Without a grant, headless Chromium answers the permission prompt with "denied".
    await page.getByRole('button', { name: 'Get notifications' }).click();
    await seeText(page.getByRole('status'), 'Notifications are blocked for this site');
    await page.getByRole('button', { name: 'Get notifications' }).waitFor();
    await context.close();
  });
});
