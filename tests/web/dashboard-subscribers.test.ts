import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCREENSHOTS, seeFocused, seeText, startBrowserOn } from '../harness/browser.ts';
import { sessionCall, signUp, type DashboardSession } from '../harness/dashboard-session.ts';
import { get, patch, post } from '../harness/requests.ts';
import { tokens } from '../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';
import { testDialect } from '../harness/test-dialect.ts';

/**
 * The Subscribers page, a subscriber's page with its "send a test to this device", and the Compose audience picker,
 * in Chromium at 390 px wide and driven from the keyboard (docs/dashboard.md).
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

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `${SCREENSHOTS}/${testDialect}-subscribers-${name}.png`, fullPage: true });
const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();
const fitsWidth = async (page: Page) =>
  expect(
    await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number),
  ).toBeLessThanOrEqual(390);

/** A signed-up account with a channel, two people's devices (alice: two, tagged vip on one; bob: one) and a secret key. */
async function seedAccount(): Promise<{ user: DashboardSession; secretKey: string; alice: string[]; bob: string }> {
  const user = await signUp(t, { accountName: 'Audience' });
  expect((await sessionCall(t, 'POST', '/api/v1/channels', user, { body: { code: 'news' } })).statusCode).toBe(201);
  const publishable = (
    await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'app', kind: 'publishable' } })
  ).body.data.key as string;
  const secretKey = (await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'backend' } })).body.data
    .key as string;
  const register = async (platform: 'ios' | 'android', externalId: string) =>
    (
      await post(t.app, '/api/v1/subscribers', publishable, {
        channelCode: 'news',
        platform,
        token: tokens[platform](),
        externalId,
      })
    ).body.data.id as string;
  const alice = [await register('ios', 'alice'), await register('android', 'alice')];
  const bob = await register('android', 'bob');
  expect((await patch(t.app, `/api/v1/subscribers/${alice[0]}`, secretKey, { tags: ['vip'] })).statusCode).toBe(200);
  return { user, secretKey, alice, bob };
}

/** The border colour every text field and select has (web/app.css). */
const FIELD_BORDER = 'rgb(138, 148, 163)';
const borderOf = (locator: Locator) =>
  locator.evaluate((element) => (globalThis as any).getComputedStyle(element).borderTopColor as string);

/** Presses Tab until the focused element is the control labelled `label` (at most 60 presses). */
async function tabTo(page: Page, label: string) {
  for (let i = 0; i < 60; i += 1) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = (globalThis as any).document.activeElement;
      return element?.labels?.[0] ? (element.labels[0].textContent as string) : null;
    });
    if (focused?.startsWith(label)) return;
  }
  throw new Error(`could not reach "${label}" with Tab`);
}

describe('the Subscribers page in Chromium', { timeout: 120_000 }, () => {
  it('finds a person, shows a device, sends a test to it alone, and composes to users: at 390 px, by keyboard', async () => {
    const { user, secretKey, alice, bob } = await seedAccount();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await context.addCookies([{ name: 'clarion_session', value: user.token, url: base }]);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));

    await page.goto(`${base}/#/subscribers`);
    await heading(page, 'Subscribers');
    await seeText(page.getByRole('table'), bob);
    await fitsWidth(page);
    await shot(page, '01-list');

    // The search box is drawn as the other fields of the form.
    expect(await borderOf(page.locator('input[type="search"]'))).toBe(FIELD_BORDER);
    expect(await borderOf(page.locator('select').first())).toBe(FIELD_BORDER);
    // Search by external id from the keyboard: only alice's two devices remain.
    await tabTo(page, 'Search');
    await page.keyboard.type('alice');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Results for “alice”' }).waitFor();
    const rows = page.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(3);
    expect(await page.getByRole('table').textContent()).not.toContain(bob);

    // A delivery and a failed push of that device, to see on its page.
    const delivered = t.clock.now() + 60_000;
    await t.store.db
      .updateTable('subscribers')
      .set({ last_delivered_at: delivered })
      .where('id', '=', alice[0]!)
      .execute();
    const failedNotification = (
      await post(t.app, '/api/v1/notifications', secretKey, { channelCode: 'news', title: 'Failed once' })
    ).body.data.id as string;
    await t.store.db
      .insertInto('delivery_failures')
      .values({
        notification_id: failedNotification,
        subscriber_id: alice[0]!,
        platform: 'ios',
        reason: 'token_invalid',
        created_at: delivered,
      })
      .execute();

    // Open a device with Enter on its link; its details, never its token.
    const link = page.getByRole('link', { name: alice[0]! });
    await link.focus();
    await page.keyboard.press('Enter');
    await heading(page, `Subscriber ${alice[0]}`);
    await seeText(page.locator('dl.facts'), 'vip');
    const deliveredIso = new Date(delivered).toISOString();
    await page.locator(`dl.facts time[datetime="${deliveredIso}"]`).waitFor();
    await page.getByRole('heading', { name: 'Recent failed pushes' }).waitFor();
    await seeText(page.getByRole('region', { name: 'Recent failed pushes' }), 'token_invalid');
    const failures = page.getByRole('region', { name: 'Recent failed pushes' });
    expect(await failures.getByRole('link', { name: 'token_invalid' }).getAttribute('href')).toContain(
      failedNotification,
    );
    await failures.locator(`time[datetime="${deliveredIso}"]`).waitFor();
    await page.getByRole('heading', { name: 'Other devices of alice' }).waitFor();
    await seeText(page.getByRole('main'), alice[1]!);
    await fitsWidth(page);
    await shot(page, '02-detail');

    // The test's Title field (an input without a type) is drawn as every text field (web/app.css: #8a94a3 border).
    expect(await borderOf(page.locator('#test-title'))).toBe(FIELD_BORDER);

    // "Send a test to this device": only that subscriber is targeted.
    await tabTo(page, 'Title');
    await page.keyboard.press('Enter');
    await heading(page, 'Test notification');
    await seeText(page.locator('dl.facts'), '1 chosen subscriber(s)');
    const tested = (await get(t.app, '/api/v1/notifications?limit=1', secretKey)).body.data[0];
    expect(tested).toMatchObject({ recipientCount: 1, audience: { type: 'subscriberIds', count: 1 } });

    // Compose to some users, picking the audience with the keyboard.
    await page.goto(`${base}/#/notifications/new`);
    await heading(page, 'New notification');
    // Tab reaches the checked radio of the group; the arrow keys pick another, as in any radio group.
    await tabTo(page, 'All subscribers');
    await page.keyboard.press('ArrowDown');
    await seeFocused(page.getByRole('radio', { name: /Some users/ }));
    await tabTo(page, 'External ids');
    await page.keyboard.type('alice\nnobody');
    await tabTo(page, 'Title');
    await page.keyboard.type('For Alice');
    await fitsWidth(page);
    await shot(page, '03-compose-audience');
    await page.keyboard.press('Enter');
    await heading(page, 'For Alice');
    await seeText(page.locator('dl.facts'), 'The devices of 2 user(s)');
    const composed = (await get(t.app, '/api/v1/notifications?limit=1', secretKey)).body.data[0];
    expect(composed).toMatchObject({
      title: 'For Alice',
      recipientCount: 2,
      audience: { type: 'externalIds', count: 2 },
    });

    expect(errors).toEqual([]);
    await context.close();
  });
});
