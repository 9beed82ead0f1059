import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountPlan } from '../../src/store/accounts-queries.ts';
import { SCREENSHOTS, startBrowserOn, seeAttribute, seeFocused, seeText } from '../harness/browser.ts';
import { GOOD_PASSWORD, randomEmail } from '../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';
import { testDialect } from '../harness/test-dialect.ts';
import { eventually } from '../harness/wait-for.ts';

/**
 * The dashboard in a real browser (Debian's Chromium, headless) against the real app on a random port: the flows
 * an account owner goes through, the errors they can meet, and a screenshot of every page for review
 * (test-results/screenshots/, kept as CI artifacts).
 */

let t: TestApp;
let base: string;
let browser: Browser;

beforeAll(async () => {
  // Webhook endpoints in the test point at a local address.
  t = await startTestApp({ allowPrivateWebhooks: true });
  ({ base, browser } = await startBrowserOn(t.app));
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

interface Tab {
  context: BrowserContext;
  page: Page;
  /** Uncaught script errors: the dashboard must have none. */
  errors: string[];
}

async function openTab(viewport = { width: 1100, height: 900 }): Promise<Tab> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  return { context, page, errors };
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `${SCREENSHOTS}/${testDialect}-${name}.png`, fullPage: true });
const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();

/** A request from outside the browser, as an API client would make it. */
/** A call to the API with `key`, or with no Authorization header at all when it is null. */
async function api(method: string, path: string, key: string | null, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function signUpInBrowser(page: Page, email: string, accountName: string) {
  await page.goto(`${base}/`);
  await heading(page, 'Sign in');
  await page.getByRole('link', { name: 'Create an account' }).click();
  await heading(page, 'Create your account');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(GOOD_PASSWORD);
  await page.getByLabel('Account name').fill(accountName);
  await page.getByRole('button', { name: 'Create account' }).click();
  await heading(page, 'Channels');
}

// A whole flow takes 5–20 s; the default 30 s per test is too tight while the rest of the suite shares the 2 cores.
describe('the dashboard in Chromium', { timeout: 90_000 }, () => {
  it('sign up → channel → scoped key shown once that works with the API → revoke → refused; sends and the usage bar', async () => {
    const { context, page, errors } = await openTab();
    const email = randomEmail();
    await page.goto(`${base}/`);
    await heading(page, 'Sign in');
    await shot(page, '01-sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await heading(page, 'Create your account');
    // The password rule is said up front and enforced by the API, whose message is shown.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await seeText(page.getByRole('alert').first(), 'at least 10 characters');
    // The summary names the field as the form does, not by the API's property name.
    await seeText(page.getByRole('alert').first(), 'Password: ');
    expect(await page.getByRole('alert').first().textContent()).not.toContain('password:');
    await shot(page, '02-sign-up-error');
    await page.getByLabel('Password').fill(GOOD_PASSWORD);
    await page.getByLabel('Account name').fill('Acme');
    await page.getByRole('button', { name: 'Create account' }).click();
    await heading(page, 'Channels');
    await page.getByText('Your account is ready').waitFor();

    // Channel: the code rule is explained inline while typing, then the API's own answer.
    await page.getByLabel('Code').fill('News!');
    await page.getByText('"News!" is not a valid code').waitFor();
    await shot(page, '03-channels-code-rule');
    await page.getByLabel('Code').fill('news');
    await page.getByLabel('Name').fill('News');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await heading(page, 'News (news)');
    await page.getByRole('heading', { name: 'Join information for apps' }).waitFor();
    await seeText(page.locator('pre.code'), '"channelCode": "news"');
    await shot(page, '04-channel');
    await nav(page, 'Channels');
    await page.getByLabel('Code').fill('news');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await seeText(page.getByRole('alert').first(), 'already used');
    await page.getByLabel('Code').fill('sport');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await heading(page, 'Channel sport');
    await nav(page, 'Channels');
    await seeText(page.getByRole('table'), 'sport');
    await shot(page, '05-channels');

    // A secret key limited to "news": shown once, with the warning.
    await nav(page, 'API keys');
    await heading(page, 'API keys');
    // The instance's VAPID public key, as the API serves it.
    const vapid = await api('GET', '/api/v1/web-push/public-key', null);
    await seeText(page.getByRole('region', { name: 'Web Push public key' }), vapid.body.data.publicKey);
    // The test server's base URL is http://localhost, so its VAPID subject is one Safari refuses: the page says so.
    await seeText(page.getByRole('region', { name: 'Web Push public key' }), 'Safari');
    await page.getByLabel('Key name').fill('backend');
    await page.getByLabel('Chosen channels only').check();
    await page.getByRole('checkbox', { name: 'news' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('you will not see this again').waitFor();
    const key = await page.getByLabel(/^backend \(secret, channels news\)/).inputValue();
    expect(key).toMatch(/^clr_sk_[A-Za-z0-9_-]{32}$/);
    await shot(page, '06-key-created');
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByRole('button', { name: /Copied|Copy failed/ }).waitFor();

    // The key works with the API, within its scope only.
    const sent = await api('POST', '/api/v1/notifications', key, { channelCode: 'news', title: 'From the backend' });
    expect(sent.status).toBe(201);
    expect(
      (await api('POST', '/api/v1/notifications', key, { channelCode: 'sport', title: 'Out of scope' })).body.error
        .code,
    ).toBe('channel_not_allowed');

    // Done: the value leaves the page, and no page shows it again.
    await page.getByRole('button', { name: 'Done: I have stored it' }).click();
    await page.reload();
    await heading(page, 'API keys');
    await seeText(page.getByRole('table'), `${key.slice(0, 11)}…`);
    expect(await page.content()).not.toContain(key);
    expect(page.url()).not.toContain(key);

    // Revoke (through the confirmation dialog): the very next API request with the key is refused.
    await page.getByRole('button', { name: 'Revoke backend' }).click();
    await seeText(page.getByRole('dialog'), 'Revoke the key "backend"?');
    await shot(page, '07-key-revoke-dialog');
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await seeText(page.getByRole('table'), 'Revoked');
    await shot(page, '08-keys');
    const refused = await api('GET', '/api/v1/usage', key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');

    // Compose and send a test notification, and schedule one.
    await nav(page, 'Notifications');
    await page.getByRole('link', { name: 'New notification' }).click();
    await heading(page, 'New notification');
    await page.getByLabel('Channel', { exact: true }).selectOption('news');
    await page.getByLabel('Title (optional)', { exact: true }).fill('Hello from the dashboard');
    await page.getByLabel('Body').fill('A test notification');
    await shot(page, '09-compose');
    await page.getByRole('button', { name: 'Send notification' }).click();
    await heading(page, 'Hello from the dashboard');
    await page.getByText('Delivery failures').waitFor();
    await shot(page, '10-notification');
    await nav(page, 'Notifications');
    await page.getByRole('link', { name: 'New notification' }).click();
    await page.getByLabel('Title (optional)', { exact: true }).fill('Later');
    await page.getByLabel('Schedule for later').check();
    await page.getByLabel('Send at').fill(localDateTime(Date.now() + 86_400_000));
    await page.getByRole('button', { name: 'Send notification' }).click();
    await heading(page, 'Later');
    await page.locator('.badge', { hasText: 'Scheduled' }).waitFor();
    await page.getByRole('button', { name: 'Cancel notification' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel notification' }).click();
    await page.locator('.badge', { hasText: 'Canceled' }).waitFor();
    await nav(page, 'Notifications');
    await seeText(page.getByRole('table'), 'From the backend');
    await shot(page, '11-notifications');
    // The filter takes a channel alone, any status (an empty choice is a choice, not a missing answer).
    await page.getByLabel('Channel', { exact: true }).selectOption('sport');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/#\/notifications\?channel=sport$/);
    await page.getByText('No notifications').waitFor();
    expect(await page.getByLabel('Status').inputValue()).toBe('');

    // Usage: two notifications count (the canceled one was refunded).
    await nav(page, 'Usage');
    await heading(page, 'Usage');
    const bar = page.getByRole('progressbar');
    await seeAttribute(bar, 'aria-valuenow', '2');
    await seeAttribute(bar, 'aria-valuemax', '250');
    await page.getByText('2 of 250').waitFor();
    await page.getByRole('img', { name: /Daily notifications\. 2 notifications this month/ }).waitFor();
    await shot(page, '12-usage');

    // Near and at the limit: the banner, and the API's quota message when sending anyway.
    const accountId = await page.evaluate(
      async () => ((await (await fetch('/api/v1/auth/session')).json()) as any).data.session.account.id as string,
    );
    await setAccountPlan(t.store.db, accountId, 'free', 2);
    await page.reload();
    await seeText(page.locator('.quota-banner').first(), "This month's quota is used up.");
    await shot(page, '13-usage-at-limit');
    await nav(page, 'Notifications');
    await page.getByRole('link', { name: 'New notification' }).click();
    await page.getByLabel('Title (optional)', { exact: true }).fill('One too many');
    await page.getByRole('button', { name: 'Send notification' }).click();
    await seeText(page.getByRole('alert').first(), "This month's quota of 2 notifications");
    await setAccountPlan(t.store.db, accountId, 'free', null);

    // Readable at phone width: no page scrolls sideways.
    await page.setViewportSize({ width: 375, height: 800 });
    for (const [section, name] of [
      ['Channels', 'channels'],
      ['API keys', 'keys'],
      ['Notifications', 'notifications'],
      ['Usage', 'usage'],
    ] as const) {
      await nav(page, section);
      await heading(page, section);
      await page.waitForLoadState('networkidle');
      expect(
        await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number),
        `${section} at 375 px`,
      ).toBeLessThanOrEqual(375);
      await shot(page, `14-phone-${name}`);
    }
    // The header keeps to two lines of a phone's screen, and tables are cards: every column of a row is on screen.
    expect((await page.locator('header').boundingBox())!.height).toBeLessThanOrEqual(110);
    const onScreen = async (locator: ReturnType<Page['locator']>) => {
      const box = (await locator.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(375);
    };
    await nav(page, 'Notifications');
    await heading(page, 'Notifications');
    await onScreen(page.locator('td[data-label="Failed"]').first());
    await onScreen(page.locator('td[data-label="Delivered"]').first());
    await nav(page, 'API keys');
    await heading(page, 'API keys');
    await onScreen(page.locator('td[data-label="Status"]').first());

    // Sign out: back to sign-in, and the old session is over.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in');
    await page.getByText('You are signed out.').waitFor();
    expect(await page.evaluate(async () => (await fetch('/api/v1/channels')).status)).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('is usable with the keyboard alone', async () => {
    const { context, page, errors } = await openTab();
    await signUpInBrowser(page, randomEmail(), 'Keyboard');
    // From a fresh load: Tab to the skip link, then on to the channel code field, type, and submit with Enter.
    await page.reload();
    await heading(page, 'Channels');
    await page.keyboard.press('Tab');
    await seeText(page.locator(':focus'), 'Skip to content');
    await page.keyboard.press('Enter');
    await seeFocused(page.locator('#main'));
    await tabTo(page, 'Code');
    await page.keyboard.type('alerts');
    await page.keyboard.press('Enter');
    await heading(page, 'Channel alerts');
    await seeFocused(page.getByRole('heading', { level: 1 }));

    // Create a key and revoke it, then dismiss a dialog with Escape: all from the keyboard.
    await nav(page, 'API keys');
    await heading(page, 'API keys');
    await tabTo(page, 'Key name');
    await page.keyboard.type('ci');
    await page.keyboard.press('Enter');
    await page.getByText('you will not see this again').waitFor();
    await seeFocused(page.getByRole('heading', { name: 'Your new API key' }));
    // "Done" takes the value away and focus goes on to the list of keys, not to the page's body.
    await page.getByRole('button', { name: 'Done: I have stored it' }).focus();
    await page.keyboard.press('Enter');
    await seeFocused(page.getByRole('heading', { name: 'Your keys' }));
    await page.getByRole('button', { name: 'Revoke ci' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await seeFocused(page.getByRole('button', { name: 'Revoke ci' }));
    // The revoke dialog opens on Cancel: an Enter out of habit revokes nothing.
    await page.keyboard.press('Enter');
    await seeFocused(page.getByRole('dialog').getByRole('button', { name: 'Cancel' }));
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await seeFocused(page.getByRole('button', { name: 'Revoke ci' }));
    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+Tab');
    await seeFocused(page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }));
    await page.keyboard.press('Enter');
    await seeText(page.getByRole('table'), 'Revoked');
    // The revoked key's buttons are gone: focus is on the list, not lost.
    await seeFocused(page.getByRole('heading', { name: 'Your keys' }));

    // A rotated key and its new value share a name during the grace period; their buttons still say which is which.
    await tabTo(page, 'Key name');
    await page.keyboard.type('worker');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Done: I have stored it' }).click();
    await page.getByRole('button', { name: 'Rotate worker' }).click();
    await page.getByRole('dialog').getByLabel('Old key keeps working for').selectOption({ label: '1 hour' });
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate key' }).click();
    await page.getByRole('button', { name: 'Done: I have stored it' }).click();
    const revokeWorker = page.getByRole('button', { name: /^Revoke worker/ });
    await eventually(async () => expect(await revokeWorker.count()).toBe(2));
    const names = await revokeWorker.evaluateAll((buttons) => buttons.map((button) => button.textContent));
    expect(new Set(names).size).toBe(2);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows sign-in failures as the API words them: a wrong password, then the rate limit', async () => {
    const { context, page, errors } = await openTab();
    const email = randomEmail();
    await signUpInBrowser(page, email, 'Locked');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in');
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(`wrong password ${attempt}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await seeText(page.getByRole('alert'), 'Wrong email or password.');
    }
    await shot(page, '15-sign-in-failed');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(GOOD_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await seeText(page.getByRole('alert'), 'Too many sign-in attempts; try again in 1 second.');
    await shot(page, '16-sign-in-rate-limited');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows webhook endpoints with their delivery log and replay, and Live Activities as a lock screen would', async () => {
    const { context, page, errors } = await openTab();
    await signUpInBrowser(page, randomEmail(), 'Hooks');
    await nav(page, 'Webhooks');
    await heading(page, 'Webhooks');
    await page.getByLabel('Endpoint URL').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await seeText(page.getByRole('alert'), 'Endpoint URL: must use http or https');
    await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hooks/clarion');
    await page.getByLabel('Description').fill('Order service');
    await page.getByLabel('Chosen events only').check();
    await page.getByRole('checkbox', { name: /notification\.delivered/ }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await page.getByLabel('Signing secret', { exact: true }).inputValue()).toMatch(/^whsec_/);
    await shot(page, '17-webhook-created');
    await page.getByRole('button', { name: 'Done' }).click();
    await heading(page, 'Order service');
    await page.getByRole('button', { name: 'Send a test message' }).click();
    await seeText(page.getByRole('table'), 'webhook.test');
    await page.getByRole('button', { name: /^Replay msg_/ }).click();
    await seeText(page.locator('#announcer'), 'Message replayed.');
    await shot(page, '18-webhook-log');
    // Rotating the signing secret: a new one shown at once, the old one signing beside it for the grace chosen.
    await page.getByRole('button', { name: 'Show signing secret' }).click();
    const before = await page.getByLabel('Signing secret', { exact: true }).last().inputValue();
    await page.getByRole('button', { name: 'Rotate signing secret' }).click();
    await page.getByRole('dialog').getByLabel('Old secret keeps signing for').selectOption({ label: '1 hour' });
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('heading', { name: 'New signing secret' }).waitFor();
    const after = await page.getByLabel('Signing secret', { exact: true }).last().inputValue();
    expect(after).toMatch(/^whsec_/);
    expect(after).not.toBe(before);
    await page.getByText('Old secret signs until').waitFor();

    // Activities started by "the backend" (here the session, through the same API) show as lock-screen previews.
    expect((await inPage(page, 'POST', '/api/v1/channels', { code: 'live' })).status).toBe(201);
    const starts = [
      { template: 'progress', fields: { title: 'Order #42', progress: 0.45, status: 'Packing' } },
      { template: 'timer', fields: { title: 'Pizza', durationSeconds: 1500, status: 'In the oven' } },
      {
        template: 'score',
        fields: {
          title: 'Final',
          home: { name: 'Lions', score: 2 },
          away: { name: 'Bears', score: 1 },
          period: '2nd half',
        },
      },
      { template: 'steps', fields: { title: 'Delivery', currentStep: 2, totalSteps: 4, status: 'On the way' } },
      {
        template: 'metrics',
        fields: {
          title: 'api-1',
          metrics: [
            { label: 'CPU', value: 72, unit: '%', trend: 'up' },
            { label: 'Errors', value: 3 },
          ],
          status: 'Deploying',
        },
      },
      { template: 'status', fields: { title: 'db-2', state: 'error', message: 'Disk full on db-2' } },
    ];
    let timerEndsAt = 0;
    for (const start of starts) {
      const started = await inPage(page, 'POST', '/api/v1/live-activities', {
        channelCode: 'live',
        ...start,
        alert: { title: start.fields.title },
      });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      if (start.template === 'timer') timerEndsAt = Date.parse((started.body as any).data.fields.endsAt);
    }
    await nav(page, 'Live Activities');
    await heading(page, 'Live Activities');
    await seeAttribute(page.getByRole('progressbar', { name: 'Order #42' }), 'aria-valuenow', '45');
    // The timer counts down to its end as the page's clock tells it (it ticks each second; a loaded machine may
    // take a while to get here, so what it shows is compared with the time left at the moment it is read).
    await seeText(page.locator('.la-timer'), ':');
    const shown = (await page.locator('.la-timer').textContent()) ?? '';
    const readAt = (await page.evaluate('Date.now()')) as number;
    const [minutes, secondsPart] = shown.split(':').map(Number);
    const left = (timerEndsAt - readAt) / 1000;
    expect(Math.abs(minutes! * 60 + secondsPart! - left), `${shown} with ${left} s left`).toBeLessThanOrEqual(5);
    expect(left).toBeLessThan(1500);
    await seeText(page.locator('.la-score'), '2 – 1');
    await seeText(page.locator('.template-steps'), 'Step 2 of 4');
    // Metrics: each label over its value and unit, the trend as its arrow, named for screen readers.
    await seeText(page.locator('.template-metrics .la-metric').first(), 'CPU72 % ↑');
    await seeText(page.locator('.template-metrics .la-metric').nth(1), 'Errors3');
    await seeAttribute(page.locator('.template-metrics .la-trend'), 'aria-label', 'going up');
    await seeText(page.locator('.template-metrics'), 'Deploying');
    // Status: the state in words, in its colour (error red), and the message as its line.
    await seeText(page.locator('.template-status .la-state'), 'Error');
    expect(
      await page
        .locator('.template-status .la-state')
        .evaluate((element) => (globalThis as any).getComputedStyle(element).color as string),
    ).toBe('rgb(255, 59, 48)');
    await seeText(page.locator('.template-status .la-status'), 'Disk full on db-2');
    await shot(page, '19-live-activities');
    await page.getByRole('button', { name: 'End activity Pizza' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'End activity' }).click();
    await page.getByRole('button', { name: 'End activity Pizza' }).waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('starts, updates and ends a Live Activity from the Live Activities page, with the live preview and the delivery counts', async () => {
    const { context, page, errors } = await openTab();
    await signUpInBrowser(page, randomEmail(), 'Live');
    expect((await inPage(page, 'POST', '/api/v1/channels', { code: 'match' })).status).toBe(201);
    await nav(page, 'Live Activities');
    await heading(page, 'Live Activities');
    await page.getByText('Start a Live Activity', { exact: true }).first().click();
    const form = page.getByRole('form', { name: 'Start a Live Activity' });
    // Each template's sample fields are previewed as soon as it is chosen.
    await form.getByLabel('Template').selectOption('status');
    await seeText(form.locator('.la-state.state-warning'), 'Warning');
    await form.getByLabel('Template').selectOption('metrics');
    await seeText(form.locator('.la-metrics'), '72 % ↑');
    await form.getByLabel('Template').selectOption('score');
    // The preview follows the fields as they are typed.
    await form
      .getByLabel('Fields', { exact: true })
      .fill(JSON.stringify({ title: 'Derby', home: { name: 'Lions', score: 1 }, away: { name: 'Bears', score: 0 } }));
    await seeText(form.locator('.la-score'), '1 – 0');
    await form.getByLabel('Delivery').selectOption('broadcast');
    await shot(page, '20-live-activity-start-form');
    await form.getByRole('button', { name: 'Start activity' }).click();
    await seeText(page.locator('#announcer'), 'Live Activity started');
    const card = page.getByRole('article', { name: /score activity Derby/ });
    await seeText(card, 'broadcast: 0 on the broadcast channel, 0 per device');

    await card.getByRole('button', { name: 'Update activity Derby' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Fields to change').fill(JSON.stringify({ away: { score: 2 } }));
    await seeText(dialog.locator('.la-score'), '1 – 2');
    await dialog.getByLabel('Priority').selectOption('high');
    await dialog.getByRole('button', { name: 'Update activity' }).click();
    await seeText(page.locator('#announcer'), 'Live Activity updated.');
    await seeText(page.getByRole('article', { name: /score activity Derby/ }).locator('.la-score'), '1 – 2');
    await shot(page, '21-live-activity-updated');

    await page.getByRole('button', { name: 'End activity Derby' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'End activity' }).click();
    await page.getByRole('button', { name: 'End activity Derby' }).waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows a scheduled Live Activity under Scheduled with its start time, and cancels it', async () => {
    const { context, page, errors } = await openTab();
    await signUpInBrowser(page, randomEmail(), 'Later');
    expect((await inPage(page, 'POST', '/api/v1/channels', { code: 'match' })).status).toBe(201);
    const scheduled = await inPage(page, 'POST', '/api/v1/live-activities', {
      channelCode: 'match',
      template: 'progress',
      fields: { title: 'Kick-off soon', progress: 0 },
      sendAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(201);
    await nav(page, 'Live Activities');
    await heading(page, 'Live Activities');
    await page.getByLabel('Show').selectOption('scheduled');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    const card = page.getByRole('article', { name: /progress activity Kick-off soon/ });
    await seeText(card, 'Starts');
    await card.getByRole('button', { name: 'Cancel activity Kick-off soon' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel activity' }).click();
    await seeText(page.locator('#announcer'), 'Live Activity canceled.');
    await card.waitFor({ state: 'detached' });
    const read = await inPage(page, 'GET', `/api/v1/live-activities/${(scheduled.body as any).data.id}`);
    expect((read.body as any).data.status).toBe('canceled');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('refuses state changes without the CSRF token, and from another site', async () => {
    const { context, page } = await openTab();
    await signUpInBrowser(page, randomEmail(), 'CSRF');
    const attempts = await page.evaluate(async () => {
      const post = (headers: Record<string, string>) =>
        fetch('/api/v1/channels', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ code: 'csrf' }),
        }).then(async (response) => ({
          status: response.status,
          code: (((await response.json()) as any).error?.code as string | undefined) ?? null,
        }));
      const session = ((await (await fetch('/api/v1/auth/session')).json()) as any).data.session;
      return {
        missing: await post({}),
        wrong: await post({ 'x-csrf-token': 'forged' }),
        right: await post({ 'x-csrf-token': session.csrfToken }),
      };
    });
    expect(attempts).toEqual({
      missing: { status: 403, code: 'csrf_failed' },
      wrong: { status: 403, code: 'csrf_failed' },
      right: { status: 201, code: null },
    });

    // A page on another site tries a form post and a fetch with the user's cookies: neither changes anything.
    const evil = 'http://localhost:9/evil';
    await page.route(evil, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<form id="f" method="POST" action="${base}/api/v1/channels" enctype="text/plain"><input name='{"code":"evil-form","x":"' value='"}'></form>
          <script>fetch("${base}/api/v1/channels", {method: "POST", credentials: "include", mode: "no-cors", headers: {"content-type": "text/plain"}, body: '{"code":"evil-fetch"}'}).finally(() => document.getElementById("f").submit());</script>`,
      }),
    );
    await page.goto(evil);
    await page.waitForURL(`${base}/api/v1/channels`);
    await page.goto(`${base}/#/channels`);
    await heading(page, 'Channels');
    await seeText(page.getByRole('table'), 'csrf');
    expect((await page.getByRole('table').allTextContents()).join(' ')).not.toContain('evil');
    await context.close();
  });
});

/** Calls the API from the signed-in page, as the dashboard does (cookie + CSRF token). */
async function inPage(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const session = ((await (await fetch('/api/v1/auth/session')).json()) as any).data.session;
      const response = await fetch(path, {
        method,
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    },
    { method, path, body },
  );
}

/** Presses Tab until the focused element is the input labelled `label` (at most 40 presses). */
async function tabTo(page: Page, label: string) {
  for (let i = 0; i < 40; i += 1) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      // Runs in the page (the project's TypeScript has no DOM types, hence the any).
      const element = (globalThis as any).document.activeElement;
      return element?.tagName === 'INPUT' && element.labels?.[0] ? (element.labels[0].textContent as string) : null;
    });
    if (focused?.startsWith(label)) return;
  }
  throw new Error(`could not reach "${label}" with Tab`);
}

/** A datetime-local value ("YYYY-MM-DDTHH:MM") in the browser's zone, which headless Chromium shares with Node. */
function localDateTime(ms: number): string {
  const date = new Date(ms);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
