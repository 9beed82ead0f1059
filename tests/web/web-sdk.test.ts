import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSubscriber } from '../../src/store/subscribers-queries.ts';
import { forgedReceipt, receiptRows, sentReceipt } from '../api/receipts/receipts-fixture.ts';
import { startFakeWebPush, type FakeWebPush } from '../../tools/fakes/index.ts';
import { launchChromium, requireChromium } from '../harness/browser.ts';
import {
  deliverPush,
  injectPushManager,
  serviceWorkerAt,
  shownNotifications,
  subscribeCalls,
} from '../harness/push-browser.ts';
import { get, post } from '../harness/requests.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';

/**
 * The browser SDK as a customer uses it (docs/web-push.md, "Subscribing a browser"): a page on the customer's own
 * origin imports /sdk/clarion-web.js from Clarion, and the customer's /clarion-sw.js imports Clarion's service worker.
 * Clarion listens on 127.0.0.1 and the customer's site on localhost: two origins, so every call crosses CORS.
 */
let t: TestApp;
let clarion: string;
let site: Server;
let siteOrigin: string;
let browser: Browser;
let fake: FakeWebPush;

/** The customer's page: the copy-paste snippet of docs/web-push.md, with the test's key and channel in the URL. */
function customerPage(query: URLSearchParams): string {
  return `<!doctype html><meta charset="utf-8"><title>Shop</title>
<button id="notify">Get notifications</button><button id="stop">Stop</button><output id="result"></output>
<script type="module">
  import { Clarion } from '${clarion}/sdk/clarion-web.js';
  const options = { baseUrl: '${clarion}', publishableKey: ${JSON.stringify(query.get('key'))}, channelCode: ${JSON.stringify(query.get('channel'))} };
  const result = document.getElementById('result');
  document.getElementById('notify').addEventListener('click', async () => {
    try {
      const { subscriberId } = await Clarion.subscribe(options);
      result.value = 'subscribed ' + subscriberId;
    } catch (error) {
      result.value = 'failed ' + error.code + ': ' + error.message;
    }
  });
  document.getElementById('stop').addEventListener('click', async () => {
    result.value = 'unsubscribed ' + (await Clarion.unsubscribe(options));
  });
</script>`;
}

beforeAll(async () => {
  requireChromium();
  t = await startTestApp({ allowPrivateAddresses: true });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  clarion = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  site = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/clarion-sw.js') {
      response
        .writeHead(200, { 'content-type': 'text/javascript' })
        .end(`importScripts('${clarion}/sdk/clarion-sw.js');\n`);
    } else if (url.pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(customerPage(url.searchParams));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  fake = await startFakeWebPush();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await fake?.close();
  await new Promise((resolve) => site?.close(resolve));
  await t?.close();
});

describe('the browser SDK on a customer’s site, in Chromium', { timeout: 90_000 }, () => {
  it('subscribes across origins, the site’s own service worker shows pushes, and unsubscribing drops the browser subscription', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const publicKey = (await get(t.app, '/api/v1/web-push/public-key', null)).body.data.publicKey as string;
    const subscription = fake.subscribe({ applicationServerKey: publicKey });
    const context = await browser.newContext();
    await context.grantPermissions(['notifications'], { origin: siteOrigin });
    await injectPushManager(context, subscription.json);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${siteOrigin}/?${new URLSearchParams({ key: account.publishableKey, channel: 'news' })}`);

    await page.getByRole('button', { name: 'Get notifications' }).click();
    await page.locator('output', { hasText: /subscribed sub_/ }).waitFor();
    const subscriberId = (await page.locator('output').textContent())!.replace('subscribed ', '');
    expect(JSON.parse((await findSubscriber(t.store.db, account.id, subscriberId))!.token)).toEqual(subscription.json);
    expect(await subscribeCalls(page)).toEqual([{ userVisibleOnly: true, applicationServerKey: publicKey }]);

    // The site's /clarion-sw.js, scope /, runs Clarion's worker through importScripts.
    await serviceWorkerAt(context, `${siteOrigin}/clarion-sw.js`);
    await deliverPush(
      page,
      `${siteOrigin}/`,
      JSON.stringify({ title: 'Sale', body: 'Today only', url: `${siteOrigin}/sale`, tag: 'ntf_01hsale' }),
      'ntf_01hsale',
    );
    expect((await shownNotifications(page, `${siteOrigin}/`)).map(({ title, body }) => ({ title, body }))).toEqual([
      { title: 'Sale', body: 'Today only' },
    ]);

    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('output', { hasText: 'unsubscribed true' }).waitFor();
    expect((await findSubscriber(t.store.db, account.id, subscriberId))!.status).toBe('unsubscribed');
    // No other channel of this instance was left on the browser's subscription: it is gone too.
    expect(await page.evaluate(() => (globalThis as any).__pushManager.unsubscribed)).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("refuses to cut off a joined channel signed with another app's key (key_conflict), and replaces a subscription no channel still receives", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    // news runs on the built-in app (made before the account had apps); shop on the account's app, with its own key.
    const app = (await post(t.app, '/api/v1/apps', account.secretKey, { name: 'Shop app' })).body.data;
    expect((await post(t.app, '/api/v1/channels', account.secretKey, { code: 'shop' })).body.data.appId).toBe(app.id);
    const context = await browser.newContext();
    await context.grantPermissions(['notifications'], { origin: siteOrigin });
    // Each subscribe() gets a subscription bound to the key it passes, as a push service binds it.
    await injectPushManager(context, (applicationServerKey) => fake.subscribe({ applicationServerKey }).json);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const join = async (channel: string) => {
      await page.goto(`${siteOrigin}/?${new URLSearchParams({ key: account.publishableKey, channel })}`);
      await page.getByRole('button', { name: 'Get notifications' }).click();
      await page.locator('output', { hasText: /subscribed|failed/ }).waitFor();
      return (await page.locator('output').textContent())!;
    };
    expect(await join('news')).toMatch(/^subscribed sub_/);
    // shop needs a subscription for the app's key; the one there still carries news: refused, news untouched.
    expect(await join('shop')).toMatch(/^failed key_conflict: .*news/);
    expect(await page.evaluate(() => (globalThis as any).__pushManager.unsubscribed)).toBe(0);
    expect(await subscribeCalls(page)).toEqual([]);

    // Once news moves to the app, the old subscription carries nothing any more: shop replaces it.
    expect((await post(t.app, '/api/v1/channels/news/update', account.secretKey, { appId: app.id })).statusCode).toBe(
      200,
    );
    expect(await join('shop')).toMatch(/^subscribed sub_/);
    expect(await subscribeCalls(page)).toEqual([
      { userVisibleOnly: true, applicationServerKey: app.web.vapidPublicKey },
    ]);
    expect(await page.evaluate(() => (globalThis as any).__pushManager.unsubscribed)).toBe(1);
    await context.close();
  });

  it('registers without the zone when the browser reports one Clarion does not know', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const context = await browser.newContext();
    await context.grantPermissions(['notifications'], { origin: siteOrigin });
    await injectPushManager(context, fake.subscribe().json);
    await context.addInitScript(() => {
      const resolved = Intl.DateTimeFormat.prototype.resolvedOptions;
      Intl.DateTimeFormat.prototype.resolvedOptions = function resolvedOptions(this: Intl.DateTimeFormat) {
        return { ...resolved.call(this), timeZone: 'Etc/Unknown' };
      };
    });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${siteOrigin}/?${new URLSearchParams({ key: account.publishableKey, channel: 'news' })}`);
    await page.getByRole('button', { name: 'Get notifications' }).click();
    await page.locator('output', { hasText: /subscribed sub_/ }).waitFor();
    const subscriberId = (await page.locator('output').textContent())!.replace('subscribed ', '');
    expect(await findSubscriber(t.store.db, account.id, subscriberId)).toMatchObject({
      timezone: null,
      locale: null,
      status: 'active',
    });
    await context.close();
  });

  it('reports a receipt across origins with no key: counted once, a forged one refused as invalid_receipt', async () => {
    const { receipt, notificationId } = await sentReceipt(t);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${siteOrigin}/?${new URLSearchParams({ key: 'unused', channel: 'news' })}`);
    // A string, not a function: vitest would rewrite a function's import() into its own loader.
    const report = (body: { receipt: string; event: string; actionId?: string }): Promise<string> =>
      page.evaluate(`(async () => {
        const { Clarion } = await import('${clarion}/sdk/clarion-web.js');
        try {
          return await Clarion.sendReceipt({ baseUrl: '${clarion}', ...${JSON.stringify(body)} });
        } catch (error) {
          return error.name + ' ' + error.code;
        }
      })()`);
    expect(await report({ receipt, event: 'action', actionId: 'approve' })).toBe('counted');
    expect(await report({ receipt, event: 'action', actionId: 'approve' })).toBe('duplicate');
    expect(await report({ receipt: forgedReceipt(receipt), event: 'opened' })).toBe('ClarionError invalid_receipt');
    // The action, and the `received` it implies.
    expect(await receiptRows(t, notificationId)).toMatchObject([
      { event: 'action', action_id: 'approve' },
      { event: 'received' },
    ]);
    await context.close();
  });

  it("reads Clarion's error across origins: a key scoped to another channel gets channel_not_allowed", async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const scoped = await account.key({ kind: 'publishable', channels: ['sport'] });
    const context = await browser.newContext();
    await context.grantPermissions(['notifications'], { origin: siteOrigin });
    await injectPushManager(context, fake.subscribe().json);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${siteOrigin}/?${new URLSearchParams({ key: scoped.value, channel: 'news' })}`);
    await page.getByRole('button', { name: 'Get notifications' }).click();
    await page.locator('output', { hasText: 'failed channel_not_allowed' }).waitFor();
    await context.close();
  });
});
