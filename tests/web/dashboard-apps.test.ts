import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markAppCredentialsFailing } from '../../src/store/apps-queries.ts';
import { createApnsSigningKey } from '../../tools/fakes/index.ts';
import { fakeProviderConfig, startFakeProviders, type FakeProviders } from '../delivery/engine/delivery-harness.ts';
import { SCREENSHOTS, seeText, startBrowserOn } from '../harness/browser.ts';
import { GOOD_PASSWORD, randomEmail, sessionCall, signUp } from '../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';
import { testDialect } from '../harness/test-dialect.ts';

/** The Apps page in Chromium: upload credentials, see the fingerprints, test them against the fake providers. */
let t: TestApp;
let fakes: FakeProviders;
let base: string;
let browser: Browser;

beforeAll(async () => {
  fakes = await startFakeProviders();
  // Private addresses allowed: the uploaded service account names the fake token endpoint on loopback.
  t = await startTestApp({ ...fakeProviderConfig(fakes.providerEnv), allowPrivateAddresses: true });
  ({ base, browser } = await startBrowserOn(t.app));
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await fakes?.close();
});

describe('the Apps page', { timeout: 90_000 }, () => {
  it('uploads a .p8 key and a service account, shows fingerprints only, and tests them with APNs and FCM', async () => {
    const key = createApnsSigningKey();
    fakes.apns.addKey({ ...key, topics: ['com.example.dash'] });
    const serviceAccount = fakes.fcm.createServiceAccount('dash-project');
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    try {
      await page.goto(`${base}/#/signup`);
      await page.getByLabel('Email').fill(randomEmail());
      await page.getByLabel('Password').fill(GOOD_PASSWORD);
      await page.getByLabel('Account name').fill('Apps Inc');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { level: 1, name: 'Channels' }).waitFor();
      // A channel made before the account has apps runs on the built-in app, and the form has no App field yet.
      expect(await page.getByLabel('App').count()).toBe(0);
      await page.getByLabel('Code').fill('early');
      await page.getByRole('button', { name: 'Create channel' }).click();
      await page.getByRole('heading', { level: 1, name: 'Channel early' }).waitFor();
      await page.getByText('Built-in (this instance’s credentials)').waitFor();

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Apps', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
      // A service account whose token_uri is plain http is refused with what to fix, and no app is made.
      await page.getByLabel('Name').fill('Foreign app');
      const foreign = { ...serviceAccount.json, token_uri: 'http://127.0.0.1:8080/token' };
      await page.getByLabel('Service-account JSON').setInputFiles({
        name: 'service-account.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(foreign)),
      });
      await page.getByRole('button', { name: 'Add app' }).click();
      await page.getByRole('alert').getByText('android.serviceAccount: "token_uri" must be an https URL').waitFor();
      expect(await page.getByRole('table', { name: 'Apps and their credential fingerprints' }).count()).toBe(0);

      await page.getByLabel('Name').fill('Dash app');
      await page.getByLabel('.p8 key file').setInputFiles({
        name: `AuthKey_${key.keyId}.p8`,
        mimeType: 'application/octet-stream',
        buffer: Buffer.from(key.privateKeyPem),
      });
      await page.getByLabel('Key ID').fill(key.keyId);
      await page.getByLabel('Team ID').fill(key.teamId);
      await page.getByLabel('Bundle ID').fill('com.example.dash');
      await page.getByLabel('Service-account JSON').setInputFiles({
        name: 'service-account.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(serviceAccount.json)),
      });
      await page.getByRole('button', { name: 'Add app' }).click();

      const apps = page.getByRole('table', { name: 'Apps and their credential fingerprints' });
      await apps.getByText(`Key ${key.keyId} · Team ${key.teamId}`).waitFor();
      await apps.getByText('dash-project').waitFor();
      expect(await page.content()).not.toContain('PRIVATE KEY');

      await apps.getByRole('button', { name: 'Test credentials' }).click();
      await page.getByText('the providers accepted the credentials').waitFor();
      await page.getByText('iOS (APNs): OK').waitFor();
      await page.getByText('Android (FCM): OK').waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/${testDialect}-apps.png`, fullPage: true });

      // The early channel moves to the app; a new channel offers the app as its default.
      await page.goto(`${base}/#/channels/early`);
      await page.getByLabel('Deliver with the app').selectOption({ label: 'Dash app' });
      await page.getByRole('button', { name: 'Move channel' }).click();
      await page.getByText('Channel early now delivers with Dash app.').waitFor();
      const early = await t.app.inject({
        method: 'GET',
        url: '/api/v1/channels/early',
        headers: { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') },
      });
      expect(JSON.parse(early.body).data.appId).toMatch(/^app_/);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels', exact: true }).click();
      // The channel page stays until the list has rendered, and its own "App" form, "Deliver with the app" and
      // "Join information for apps" match a loose label: wait for the list page, then take the exact label.
      await page.getByRole('heading', { level: 1, name: 'Channels', exact: true }).waitFor();
      const appPicker = page.getByLabel('App', { exact: true });
      await appPicker.waitFor();
      expect(await appPicker.inputValue()).toBe(JSON.parse(early.body).data.appId);
      await page.getByLabel('Code').fill('later');
      await page.getByRole('button', { name: 'Create channel' }).click();
      await page.getByRole('heading', { level: 1, name: 'Channel later' }).waitFor();
      await page.locator('#channel-app').getByText('Dash app').waitFor();
      // Its browsers must subscribe with the app's own VAPID key, not the instance's: the page gives that one.
      const appList = await t.app.inject({
        method: 'GET',
        url: '/api/v1/apps',
        headers: { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') },
      });
      await seeText(page.locator('#channel-web-push-key'), JSON.parse(appList.body).data[0].web.vapidPublicKey);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says when credentials fail: since when and what the provider answered, and a refusal by Test credentials at once', async () => {
    const user = await signUp(t, { accountName: 'Failing Inc' });
    // A key the fake APNs does not know: APNs answers 403 InvalidProviderToken.
    const unknownKey = createApnsSigningKey();
    const ios = (bundleId: string) => ({
      key: unknownKey.privateKeyPem,
      keyId: unknownKey.keyId,
      teamId: unknownKey.teamId,
      bundleId,
    });
    const revoked = await sessionCall(t, 'POST', '/api/v1/apps', user, {
      body: { name: 'Revoked app', ios: ios('com.example.revoked') },
    });
    expect(revoked.statusCode).toBe(201);
    const failing = await sessionCall(t, 'POST', '/api/v1/apps', user, {
      body: { name: 'Failing app', ios: ios('com.example.failing') },
    });
    // Delivery found it failing (send-batch-job.ts marks it so).
    await markAppCredentialsFailing(t.store.db, {
      appId: failing.body.data.id,
      error: 'apns:InvalidProviderToken',
      now: t.clock.now(),
    });
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.addCookies([{ name: 'clarion_session', value: user.token, url: base }]);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    try {
      // The overview names the failing app, and only it.
      await page.goto(`${base}/#/overview`);
      await seeText(
        page.getByRole('region', { name: 'Apps' }),
        'Failing app: a provider refused its credentials (apns:InvalidProviderToken)',
      );
      expect(await page.getByRole('region', { name: 'Apps' }).textContent()).not.toContain('Revoked app');

      await page.goto(`${base}/#/apps`);
      const row = (name: string) => page.getByRole('row').filter({ hasText: name });
      await seeText(row('Failing app'), 'Failing since');
      await seeText(row('Failing app'), ': apns:InvalidProviderToken');
      expect(await row('Failing app').textContent()).not.toContain('[object');
      await seeText(row('Revoked app'), 'OK');

      await row('Revoked app').getByRole('button', { name: 'Test credentials' }).click();
      await page.getByText('a provider refused the credentials').waitFor();
      await seeText(page.locator('.app-check-results'), 'Upload the .p8 key again');
      await seeText(row('Revoked app'), 'Refused just now: iOS (APNs) apns:InvalidProviderToken');

      // A channel on an app without Android credentials says what happens to Android devices.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Channels', exact: true }).waitFor();
      await page.getByLabel('Code').fill('doors');
      await page.getByLabel('App', { exact: true }).selectOption({ label: 'Failing app' });
      await page.getByRole('button', { name: 'Create channel' }).click();
      await page.getByRole('heading', { level: 1, name: 'Channel doors' }).waitFor();
      await seeText(
        page.getByRole('status').filter({ hasText: 'credentials' }),
        'Failing app has no Android (FCM) credentials',
      );
      await seeText(page.getByRole('status').filter({ hasText: 'credentials' }), 'fcm_not_configured');
      // With apps, the built-in app is still a choice for a new channel.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Channels', exact: true }).waitFor();
      await page.getByLabel('Code').fill('plain');
      await page.getByLabel('App', { exact: true }).selectOption({ label: 'Built-in (this instance’s credentials)' });
      await page.getByRole('button', { name: 'Create channel' }).click();
      await page.getByRole('heading', { level: 1, name: 'Channel plain' }).waitFor();
      await page.locator('#channel-app').getByText('Built-in (this instance’s credentials)').waitFor();
      expect(await page.getByText('has no Android (FCM) credentials').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
