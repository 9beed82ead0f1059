import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannel } from '../../src/store/channels-queries.ts';
import { SCREENSHOTS, startBrowserOn, seeText } from '../harness/browser.ts';
import { signUp } from '../harness/dashboard-session.ts';
import { accountSlug } from '../harness/join-pages.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';
import { testDialect } from '../harness/test-dialect.ts';

/** The join page switch and QR code on the dashboard's channel page (docs/dashboard.md), in headless Chromium. */
let t: TestApp;
let base: string;
let browser: Browser;

beforeAll(async () => {
  t = await startTestApp();
  ({ base, browser } = await startBrowserOn(t.app));
  // The address the API shows is built from CLARION_BASE_URL: here, the test server's own.
  t.config.baseUrl = base;
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the join page on the dashboard', { timeout: 90_000 }, () => {
  it('turns the page on with the switch, shows its address and a QR code that loads, and turns it off again', async () => {
    const user = await signUp(t, { accountName: 'Corner Bakery' });
    await createChannel(t.store.db, {
      accountId: user.accountId,
      code: 'bread',
      name: 'Fresh bread',
      description: 'When the ovens open',
      now: t.clock.now(),
    });
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    await context.addCookies([{ name: 'clarion_session', value: user.token, url: base }]);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${base}/#/channels/bread`);
    await page.getByRole('heading', { level: 1, name: 'Fresh bread (bread)' }).waitFor();

    const toggle = page.getByRole('switch', { name: /Public join page/ });
    expect(await toggle.isChecked()).toBe(false);
    await seeText(
      page.locator('section', { has: page.getByRole('heading', { name: 'Public join page' }) }),
      'answers “not found”',
    );
    expect(
      (await t.app.inject({ method: 'GET', url: `/join/${await accountSlug(t, user.accountId)}/bread` })).statusCode,
    ).toBe(404);

    await toggle.check();
    const address = `${base}/join/corner-bakery/bread`;
    await page.getByRole('link', { name: address }).waitFor();
    const qr = page.getByRole('img', { name: `QR code of ${address}` });
    await qr.waitFor();
    // The SVG loaded under the dashboard's CSP (img-src 'self'), with the session's cookie.
    await page.waitForFunction(() => {
      const image = (globalThis as any).document.querySelector('.qr-code img');
      return image?.complete && image.naturalWidth > 0;
    });
    await page.screenshot({ path: `${SCREENSHOTS}/${testDialect}-dashboard-join-page.png`, fullPage: true });
    expect((await t.app.inject({ method: 'GET', url: '/join/corner-bakery/bread' })).statusCode).toBe(200);

    // The page it links to is the channel's join page.
    const joinPage = await context.newPage();
    await joinPage.goto(address);
    await joinPage.getByRole('heading', { level: 1, name: 'Fresh bread' }).waitFor();
    await joinPage.close();

    await toggle.uncheck();
    await seeText(
      page.locator('section', { has: page.getByRole('heading', { name: 'Public join page' }) }),
      'answers “not found”',
    );
    expect(await page.getByRole('link', { name: address }).count()).toBe(0);
    expect((await t.app.inject({ method: 'GET', url: '/join/corner-bakery/bread' })).statusCode).toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  });
});
