import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { SCREENSHOTS, seeText, startBrowserOn } from '../harness/browser.ts';
import { GOOD_PASSWORD, randomEmail } from '../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';
import { testDialect } from '../harness/test-dialect.ts';

/**
 * A new instance in the browser: with sign-up at its default (closed) and no account yet, the
 * dashboard opens on the form for the operator's first account; once it exists, sign-up is closed to everyone else.
 */
let t: TestApp;
let base: string;
let browser: Browser;

beforeAll(async () => {
  t = await startTestApp({ signup: loadConfig({}).signup }, { isolatedDatabase: true });
  ({ base, browser } = await startBrowserOn(t.app));
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the first account in Chromium', { timeout: 90_000 }, () => {
  it('an empty instance opens on the operator account form; after it, sign-up is closed', async () => {
    const operator = await browser.newContext();
    const page = await operator.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${base}/`);
    await page.getByRole('heading', { level: 1, name: 'Create the operator account' }).waitFor();
    await seeText(page.locator('main'), 'This instance has no account yet');
    await page.screenshot({ path: `${SCREENSHOTS}/${testDialect}-first-account.png`, fullPage: true });
    await page.getByLabel('Email').fill(randomEmail());
    await page.getByLabel('Password').fill(GOOD_PASSWORD);
    await page.getByLabel('Account name').fill('Operator');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Channels' }).waitFor();
    expect(errors).toEqual([]);
    await operator.close();

    const visitor = await browser.newContext();
    const other = await visitor.newPage();
    other.setDefaultTimeout(10_000);
    await other.goto(`${base}/`);
    await other.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await seeText(other.locator('main'), 'Sign-up is closed on this instance');
    await other.goto(`${base}/#/signup`);
    await seeText(other.locator('main'), 'Sign-up is closed on this instance. Ask its operator for an account.');
    expect(await other.getByRole('button', { name: 'Create account' }).count()).toBe(0);
    await visitor.close();
    expect((await t.store.db.selectFrom('accounts').select('id').execute()).length).toBe(1);
  });
});
