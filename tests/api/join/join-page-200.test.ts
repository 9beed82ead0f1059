import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { accountSlug, embeddedJoinKey, switchJoinPage } from '../../harness/join-pages.ts';
import { get, post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /join/:slug/:code → 200', () => {
  it("serves the channel's page with its name and description (escaped), a strict CSP, and no cached copy", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await post(t.app, '/api/v1/channels/news/update', account.secretKey, {
      name: 'News <b>&</b> views',
      description: 'Headlines "at 7"',
    });
    await switchJoinPage(t, account, 'news', true);
    const page = await t.app.inject({ method: 'GET', url: `/join/${await accountSlug(t, account.id)}/news` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).toContain('<h1>News &#60;b&#62;&#38;&#60;/b&#62; views</h1>');
    expect(page.body).toContain('Headlines &#34;at 7&#34;');
    expect(page.body).not.toContain('<b>');
    expect(page.body).toContain('>Get notifications</button>');
    expect(page.body).toContain('Add to Home Screen');
    expect(page.body).toContain('<script type="module" src="/sdk/join-page.js"></script>');
    // No inline script anywhere: the CSP would refuse it.
    expect(page.body.match(/<script[^>]*>/g)).toEqual(['<script type="module" src="/sdk/join-page.js">']);
  });

  it('embeds only a publishable key scoped to the channel: it registers a browser there and nowhere else', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    await switchJoinPage(t, account, 'news', true);
    const page = await t.app.inject({ method: 'GET', url: `/join/${await accountSlug(t, account.id)}/news` });
    const key = embeddedJoinKey(page.body);
    expect(key).toMatch(/^clr_pk_/);
    expect(page.body).not.toContain(account.secretKey);
    const registered = expectSuccess(
      await post(t.app, '/api/v1/subscribers', key, { channelCode: 'news', platform: 'web', token: tokens.web() }),
      201,
    );
    expect(registered).toMatchObject({ channelCode: 'news', platform: 'web' });
    expectError(
      await post(t.app, '/api/v1/subscribers', key, { channelCode: 'sport', platform: 'web', token: tokens.web() }),
      'channel_not_allowed',
    );
    expectError(await post(t.app, '/api/v1/notifications', key, { channelCode: 'news', title: 'Hi' }), 'forbidden');
    expectError(await get(t.app, '/api/v1/channels/news', key), 'forbidden');
  });

  it('serves the web app manifest iOS needs for the Home Screen, scoped to the page', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await post(t.app, '/api/v1/channels/news/update', account.secretKey, { name: 'Daily news', joinPage: true });
    const path = `/join/${await accountSlug(t, account.id)}/news`;
    const page = await t.app.inject({ method: 'GET', url: path });
    expect(page.body).toContain(`<link rel="manifest" href="${path}/manifest.webmanifest">`);
    expect(page.body).toContain('<link rel="apple-touch-icon" href="/sdk/clarion-icon-180.png">');
    const manifest = await t.app.inject({ method: 'GET', url: `${path}/manifest.webmanifest` });
    expect(manifest.statusCode).toBe(200);
    expect(manifest.headers['content-type']).toBe('application/manifest+json; charset=utf-8');
    expect(manifest.json()).toMatchObject({ name: 'Daily news', start_url: path, scope: path, display: 'standalone' });
  });

  it('finds an account created before slugs existed by the slug the migration gave it', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const legacySlug = account.id.slice('acc_'.length);
    await t.store.db.updateTable('accounts').set({ slug: legacySlug }).where('id', '=', account.id).execute();
    await switchJoinPage(t, account, 'news', true);
    expect((await t.app.inject({ method: 'GET', url: `/join/${legacySlug}/news` })).statusCode).toBe(200);
  });
});
