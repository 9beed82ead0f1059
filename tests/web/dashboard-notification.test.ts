import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { androidToken, startDeliveryHarness, type DeliveryHarness } from '../delivery/engine/delivery-harness.ts';
import { SCREENSHOTS, seeText, startBrowserOn } from '../harness/browser.ts';
import { sessionCall, signUp } from '../harness/dashboard-session.ts';
import { post } from '../harness/requests.ts';
import { testDialect } from '../harness/test-dialect.ts';

/**
 * A notification's page in Chromium while it is delivered, against the fake providers through the real worker: it
 * follows the delivery without a Refresh, tells a partial failure and an empty send from a success, explains
 * each failure with its fix, linking the subscriber, and shows the opens its receipts report.
 */
let h: DeliveryHarness;
let base: string;
let browser: Browser;

beforeAll(async () => {
  h = await startDeliveryHarness();
  ({ base, browser } = await startBrowserOn(h.app));
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe("a notification's page", { timeout: 90_000 }, () => {
  it("follows the delivery live, says a partial failure and a send to no one, explains each failure, and shows the opens on the notification's page and its channel's", async () => {
    const user = await signUp(h, { accountName: 'Feedback' });
    for (const code of ['alerts', 'empty'])
      expect((await sessionCall(h, 'POST', '/api/v1/channels', user, { body: { code } })).statusCode).toBe(201);
    const key = async (body: Record<string, string>) =>
      (await sessionCall(h, 'POST', '/api/v1/keys', user, { body })).body.data.key as string;
    const publishable = await key({ name: 'app', kind: 'publishable' });
    const secret = await key({ name: 'backend' });
    const register = async (token: string) =>
      (await post(h.app, '/api/v1/subscribers', publishable, { channelCode: 'alerts', platform: 'android', token }))
        .body.data.id as string;
    await register(androidToken(7001));
    const gone = await register(androidToken(7002));
    h.fcm.setTokenOutcome(androidToken(7002), { errorCode: 'UNREGISTERED' });
    // FCM answers after 3 s, so the page opens while the notification is still being delivered.
    h.fcm.setLatency(3000);

    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.addCookies([{ name: 'clarion_session', value: user.token, url: base }]);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    try {
      const sent = await post(h.app, '/api/v1/notifications', secret, { channelCode: 'alerts', title: 'Door opened' });
      await page.goto(`${base}/#/notifications/${sent.body.data.id}`);
      await page.getByRole('heading', { level: 1, name: 'Door opened' }).waitFor();
      const badge = page.locator('.facts .badge');
      expect(['Queued', 'Sending']).toContain(await badge.textContent());
      // No Refresh pressed: the page reads the notification again until delivery is done.
      await seeText(badge, 'Sent, 1 failed');
      const failure = page.getByRole('table', { name: 'Subscribers the notification could not be delivered to' });
      await seeText(failure, 'token_unregistered');
      await seeText(failure, 'Fix:');
      expect(await failure.getByRole('link', { name: gone }).getAttribute('href')).toBe(`#/subscribers/${gone}`);
      await page.screenshot({ path: `${SCREENSHOTS}/${testDialect}-notification-partial.png`, fullPage: true });

      // The delivered push's receipt, reported opened by the app (docs/engagement.md), shows in the funnel.
      const delivered = h.fcm.requests.find(
        (request) => request.target?.value === androidToken(7001) && request.status === 200,
      )!;
      const receipt = (delivered.message as { data: Record<string, string> }).data.clarionReceipt;
      expect((await post(h.app, '/api/v1/receipts', null, { receipt, event: 'opened' })).statusCode).toBe(202);
      await page.getByRole('button', { name: 'Refresh' }).click();
      const funnel = page.getByRole('list', { name: 'From recipients to opens' });
      await seeText(funnel.getByRole('listitem').filter({ hasText: 'Opened' }), '1 (100 %)');
      await seeText(funnel.getByRole('listitem').filter({ hasText: 'Received' }), '1 (100 %)');
      const byPlatform = page.getByRole('table', { name: 'Engagement by platform' });
      await seeText(byPlatform, 'Android');
      await seeText(byPlatform, '100 %');
      await page.goto(`${base}/#/notifications`);
      await seeText(page.getByRole('table'), '1 (100 %)');
      // The channel's page: its last 30 days, today's opens among them.
      await page.goto(`${base}/#/channels/alerts`);
      const opens = page.getByRole('region', { name: 'Opens, last 30 days' });
      await seeText(opens, '1 notification, 1 delivered, 1 opened (100 % open rate).');
      await opens.getByText('By day', { exact: true }).click();
      const today = new Date(h.clock.now()).toISOString().slice(0, 10);
      await seeText(opens.getByRole('table', { name: 'Opens by day' }).getByRole('row').nth(1), `${today}111100 %`);
      await page.goto(`${base}/#/notifications/${sent.body.data.id}`);

      h.fcm.setLatency(0);
      const nobody = await post(h.app, '/api/v1/notifications', secret, { channelCode: 'empty', title: 'Anyone?' });
      await page.goto(`${base}/#/notifications/${nobody.body.data.id}`);
      await seeText(page.locator('.facts .badge'), 'Sent to no one');
      await page.goto(`${base}/#/notifications`);
      await seeText(page.getByRole('table'), 'Sent, 1 failed');
      await seeText(page.getByRole('table'), 'Sent to no one');

      // The overview: two sends today, one of the two pushes delivered, no app failing.
      await page.goto(`${base}/#/overview`);
      const glance = page.getByRole('list', { name: 'This account at a glance' });
      await seeText(glance.getByRole('listitem').filter({ hasText: 'Sent today' }), '2');
      await seeText(glance.getByRole('listitem').filter({ hasText: 'Delivered, last 2 notifications' }), '50 %');
      await seeText(glance.getByRole('listitem').filter({ hasText: 'Quota left' }), '248 of 250');
      await seeText(page.getByRole('region', { name: 'Apps' }), 'channels use the built-in credentials');
      expect(errors).toEqual([]);
    } finally {
      h.fcm.setLatency(0);
      await context.close();
    }
  });
});
