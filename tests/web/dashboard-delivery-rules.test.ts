import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannel } from '../../src/store/channels-queries.ts';
import { startBrowserOn, seeText } from '../harness/browser.ts';
import { sessionCall, signUp } from '../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';

/**
 * Delivery rules on the dashboard (docs/dashboard.md), in headless Chromium: a channel's frequency cap and quiet hours,
 * the compose page's options and languages, an app's throttle.
 */
let t: TestApp;
let base: string;
let browser: Browser;

beforeAll(async () => {
  t = await startTestApp();
  ({ base, browser } = await startBrowserOn(t.app));
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('delivery rules on the dashboard', { timeout: 90_000 }, () => {
  it('sets a frequency cap and quiet hours, says them back, refuses what is wrong keeping them, and removes them; a throttled send shows its pace; compose sets the delivery and display options, other languages and action buttons; an app’s throttle is set and removed', async () => {
    const user = await signUp(t, { accountName: 'Deals Shop' });
    await createChannel(t.store.db, {
      accountId: user.accountId,
      code: 'deals',
      name: 'deals',
      description: null,
      now: t.clock.now(),
    });
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    await context.addCookies([{ name: 'clarion_session', value: user.token, url: base }]);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    try {
      await page.goto(`${base}/#/channels/deals`);
      const form = page.getByRole('form', { name: 'Frequency cap' });
      await seeText(form, 'No cap');
      expect(await form.getByRole('button', { name: 'Remove cap' }).isVisible()).toBe(false);

      await form.getByLabel('Notifications per subscriber, at most').fill('2');
      await form.getByLabel('In any').selectOption({ label: 'week (7 days)' });
      await form.getByRole('button', { name: 'Save cap' }).click();
      await seeText(form, 'At most 2 per subscriber in any week (7 days).');
      const channel = async () => (await sessionCall(t, 'GET', '/api/v1/channels/deals', user)).body.data;
      expect((await channel()).frequencyCap).toEqual({ count: 2, periodSeconds: 604_800 });

      await form.getByLabel('Notifications per subscriber, at most').fill('0');
      await form.getByRole('button', { name: 'Save cap' }).click();
      await seeText(form, 'must be');
      expect((await channel()).frequencyCap).toEqual({ count: 2, periodSeconds: 604_800 });

      await form.getByRole('button', { name: 'Remove cap' }).click();
      await seeText(form, 'No cap');
      expect((await channel()).frequencyCap).toBeNull();

      const quiet = page.getByRole('form', { name: 'Quiet hours' });
      await seeText(quiet, 'No quiet hours');
      await quiet.getByLabel('From').fill('21:30');
      await quiet.getByLabel('Until').fill('06:45');
      await quiet.getByRole('button', { name: 'Save quiet hours' }).click();
      await seeText(quiet, 'From 21:30 to 06:45');
      expect((await channel()).quietHours).toEqual({ start: '21:30', end: '06:45' });
      await quiet.getByLabel('Until').fill('21:30');
      await quiet.getByRole('button', { name: 'Save quiet hours' }).click();
      await seeText(quiet, 'must differ from start');
      await quiet.getByRole('button', { name: 'Remove quiet hours' }).click();
      await seeText(quiet, 'No quiet hours');
      expect((await channel()).quietHours).toBeNull();

      // A throttled send's page says its pace and when it is planned to finish.
      const sent = await sessionCall(t, 'POST', '/api/v1/notifications', user, {
        body: { channelCode: 'deals', title: 'Slowly', throttlePerMinute: 3 },
      });
      expect(sent.statusCode).toBe(201);
      await page.goto(`${base}/#/notifications/${sent.body.data.id}`);
      await seeText(page.locator('.facts'), '3 pushes a minute, planned to finish');

      // The compose page's delivery options.
      await page.goto(`${base}/#/notifications/new?channel=deals`);
      await page.getByLabel('Title (optional)', { exact: true }).fill('Options');
      await page.getByText('Delivery options').click();
      await page.getByLabel(/Pass quiet hours/).check();
      await page.getByLabel(/Pass the frequency cap/).check();
      await page.getByLabel('Throttle (pushes a minute)').fill('120');
      await page.getByRole('button', { name: 'Send notification' }).click();
      await seeText(page.locator('.facts'), '120 pushes a minute');
      const composed = (await sessionCall(t, 'GET', '/api/v1/notifications?limit=1', user)).body.data[0];
      expect(composed).toMatchObject({
        title: 'Options',
        throttlePerMinute: 120,
        ignoreQuietHours: true,
        ignoreFrequencyCap: true,
        contentAvailable: false,
      });

      // Display options and other languages; a language the API refuses is named beside them and nothing is sent.
      await page.goto(`${base}/#/notifications/new?channel=deals`);
      await page.getByLabel('Title (optional)', { exact: true }).fill('Order shipped');
      await page.getByText('iOS and Android display').click();
      await page.getByLabel('Subtitle').fill('Order #42');
      await page.getByLabel('Interruption level').selectOption('time-sensitive');
      await page.getByLabel('Relevance score').fill('0.8');
      await page.getByLabel('Android notification channel').fill('orders');
      await page.getByText('Other languages').click();
      await page.getByRole('button', { name: 'Add a language' }).click();
      const first = page.getByRole('group', { name: 'Language 1' });
      await first.getByLabel('Language tag').fill('not a tag');
      await first.getByLabel('Title in this language').fill('Commande expédiée');
      await page.getByRole('button', { name: 'Send notification' }).click();
      await seeText(page.locator('#compose-localizations-error'), 'BCP 47');
      expect(await page.locator('#compose-localizations').getAttribute('aria-invalid')).toBe('true');
      const count = async () => (await sessionCall(t, 'GET', '/api/v1/notifications', user)).body.data.length;
      expect(await count()).toBe(2);
      await first.getByLabel('Language tag').fill('fr');
      await page.getByRole('button', { name: 'Add a language' }).click();
      const second = page.getByRole('group', { name: 'Language 2' });
      await second.getByLabel('Language tag').fill('de');
      await second.getByLabel('Body in this language').fill('Kommt am Dienstag');
      await page.getByRole('button', { name: 'Send notification' }).click();
      await page.waitForURL(/#\/notifications\/ntf_/);
      const localized = (await sessionCall(t, 'GET', '/api/v1/notifications?limit=1', user)).body.data[0];
      expect(localized).toMatchObject({
        title: 'Order shipped',
        subtitle: 'Order #42',
        interruptionLevel: 'time-sensitive',
        relevanceScore: 0.8,
        androidChannelId: 'orders',
        localizations: { fr: { title: 'Commande expédiée' }, de: { body: 'Kommt am Dienstag' } },
      });
      expect(localized.category).toBeNull();

      // Action buttons: at most 3 rows; an id the API refuses is named beside them; the page lists what was sent.
      await page.goto(`${base}/#/notifications/new?channel=deals`);
      await page.getByLabel('Title (optional)', { exact: true }).fill('Deploy v42?');
      await page.getByText('Action buttons', { exact: true }).click();
      const addButton = page.getByRole('button', { name: 'Add a button' });
      for (let i = 0; i < 3; i += 1) await addButton.click();
      expect(await addButton.isHidden()).toBe(true);
      await page.getByRole('group', { name: 'Button 3' }).getByRole('button', { name: 'Remove this button' }).click();
      expect(await addButton.isVisible()).toBe(true);
      const approve = page.getByRole('group', { name: 'Button 1' });
      await approve.getByLabel('Button id').fill('say yes');
      await approve.getByLabel('Button label').fill('Approve');
      const logs = page.getByRole('group', { name: 'Button 2' });
      await logs.getByLabel('Button id').fill('logs');
      await logs.getByLabel('Button label').fill('Logs');
      await logs.getByLabel('Button link (optional)').fill('https://ci.example/42');
      await page.getByRole('button', { name: 'Send notification' }).click();
      await seeText(page.locator('#compose-actions-error'), 'letters, digits');
      expect(await page.locator('#compose-actions').getAttribute('aria-invalid')).toBe('true');
      expect(await count()).toBe(3);
      await approve.getByLabel('Button id').fill('approve');
      await page.getByRole('button', { name: 'Send notification' }).click();
      await page.waitForURL(/#\/notifications\/ntf_/);
      await seeText(page.locator('.facts'), 'Approve (approve) reports only');
      await seeText(page.locator('.facts'), 'Logs (logs) opens https://ci.example/42');
      expect((await sessionCall(t, 'GET', '/api/v1/notifications?limit=1', user)).body.data[0].actions).toEqual([
        { id: 'approve', title: 'Approve' },
        { id: 'logs', title: 'Logs', url: 'https://ci.example/42' },
      ]);

      // An app's default throttle, set and removed on the Apps page.
      const app = await sessionCall(t, 'POST', '/api/v1/apps', user, { body: { name: 'Shop app' } });
      expect(app.statusCode).toBe(201);
      await page.goto(`${base}/#/apps`);
      const throttle = page.getByRole('form', { name: 'Throttle an app' });
      await throttle.getByLabel('Pushes a minute').fill('5000');
      await throttle.getByRole('button', { name: 'Save throttle' }).click();
      await seeText(page.getByRole('table'), '5,000 pushes a minute');
      const appThrottle = async () =>
        (await sessionCall(t, 'GET', `/api/v1/apps/${app.body.data.id}`, user)).body.data.throttlePerMinute;
      expect(await appThrottle()).toBe(5000);
      await page.getByRole('form', { name: 'Throttle an app' }).getByRole('button', { name: 'Save throttle' }).click();
      await seeText(page.getByRole('table'), 'None');
      expect(await appThrottle()).toBeNull();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
