import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCREENSHOTS, startBrowserOn } from '../harness/browser.ts';
import { accountSlug } from '../harness/join-pages.ts';
import { sessionCall, signUp, type DashboardSession } from '../harness/dashboard-session.ts';
import { post } from '../harness/requests.ts';
import { tokens } from '../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';
import { testDialect } from '../harness/test-dialect.ts';

/**
 * axe-core (https://github.com/dequelabs/axe-core), the accessibility engine the browsers' own audits use, over every
 * page of the dashboard and the public join page: at desktop and phone width, in the light and the dark colour
 * scheme. A serious or critical finding (missing names, contrast under WCAG AA, broken ARIA) fails the test.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let t: TestApp;
let base: string;
let browser: Browser;
let user: DashboardSession;
let pages: string[];

beforeAll(async () => {
  // The webhook endpoint is on loopback, as in the other dashboard tests.
  t = await startTestApp({ allowPrivateWebhooks: true });
  ({ base, browser } = await startBrowserOn(t.app));
  user = await signUp(t, { accountName: 'Audit' });
  expect((await sessionCall(t, 'POST', '/api/v1/channels', user, { body: { code: 'news' } })).statusCode).toBe(201);
  const publishable = (
    await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'app', kind: 'publishable' } })
  ).body.data.key as string;
  const secret = (await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'backend' } })).body.data
    .key as string;
  const subscriber = (
    await post(t.app, '/api/v1/subscribers', publishable, {
      channelCode: 'news',
      platform: 'android',
      token: tokens.android(),
      externalId: 'alice',
    })
  ).body.data.id as string;
  const notification = (await post(t.app, '/api/v1/notifications', secret, { channelCode: 'news', title: 'Hello' }))
    .body.data.id as string;
  const webhook = (
    await sessionCall(t, 'POST', '/api/v1/webhooks', user, { body: { url: 'http://127.0.0.1:9/hooks/clarion' } })
  ).body.data.id as string;
  expect((await post(t.app, '/api/v1/channels/news/update', secret, { joinPage: true })).statusCode).toBe(200);
  pages = [
    '/#/overview',
    '/#/channels',
    '/#/channels/news',
    '/#/apps',
    '/#/subscribers',
    `/#/subscribers/${subscriber}`,
    '/#/keys',
    '/#/notifications',
    '/#/notifications/new',
    `/#/notifications/${notification}`,
    '/#/usage',
    '/#/webhooks',
    `/#/webhooks/${webhook}`,
    '/#/live-activities',
    `/join/${await accountSlug(t, user.accountId)}/news`,
  ];
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A page's path as part of a screenshot's file name. */
const shotName = (path: string) =>
  path
    .replace(/(sub|ntf|whk)_[0-9a-z]+/g, '$1')
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '');

/** axe's serious and critical findings on the page as it is now, as "rule: what, where" lines. */
async function seriousFindings(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const results = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return results.violations.map((violation: any) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.slice(0, 3).map((node: any) => node.target.join(' ')),
    }));
  });
  return violations
    .filter((violation: { impact: string }) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation: any) => `${violation.id}: ${violation.help} (${violation.targets.join(', ')})`);
}

describe('accessibility (axe-core)', { timeout: 180_000 }, () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`finds nothing serious on any page at 1280 and 390 px, ${colorScheme} scheme`, async () => {
      const findings: string[] = [];
      for (const width of [1280, 390]) {
        // bypassCSP lets axe's script in; the pages' own Content-Security-Policy would refuse it.
        const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme, bypassCSP: true });
        await context.addCookies([{ name: 'clarion_session', value: user.token, url: base }]);
        const page = await context.newPage();
        page.setDefaultTimeout(10_000);
        for (const path of pages) {
          await page.goto(`${base}${path}`);
          await page.locator('h1').first().waitFor();
          // Pages that load data in parts: wait until nothing says it is loading.
          await page.waitForFunction(() => !(globalThis as any).document.body.textContent.includes('Loading'));
          // Every page at both widths in both schemes, to look at: test-results/screenshots/<dialect>-<scheme>-<width>-*.
          await page.screenshot({
            path: `${SCREENSHOTS}/${testDialect}-${colorScheme}-${width}-${shotName(path)}.png`,
            fullPage: true,
          });
          for (const finding of await seriousFindings(page)) findings.push(`${width}px ${path}: ${finding}`);
          if (path === '/#/channels') {
            // The scheme asked for is the one drawn (web/app.css): a dark page for the dark scheme.
            const background = await page.evaluate(
              () => (globalThis as any).getComputedStyle((globalThis as any).document.documentElement).backgroundColor,
            );
            expect(background).toBe(colorScheme === 'dark' ? 'rgb(18, 22, 29)' : 'rgb(244, 246, 248)');
          }
        }
        await context.close();
      }
      expect(findings).toEqual([]);
    });
  }
});
