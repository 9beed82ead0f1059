import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealSecret } from '../../../src/domain/secret-box.ts';
import { expectError } from '../../harness/api-expect.ts';
import { accountSlug, joinKeyId, switchJoinPage } from '../../harness/join-pages.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const page = (url: string, accept = 'text/html,application/xhtml+xml,*/*;q=0.8') =>
  t.app.inject({ method: 'GET', url, headers: { accept } });

/** The plain 404 page a person sees: the same for every reason, so an address reveals nothing about the others. */
function expectPlainNotFound(response: Awaited<ReturnType<typeof page>>) {
  expect(response.statusCode).toBe(404);
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.headers['content-security-policy']).toContain("default-src 'self'");
  expect(response.body).toContain('<h1>Page not found</h1>');
  expect(response.body).not.toContain('data-key');
}

describe('GET /join/:slug/:code → 404', () => {
  it('while the switch is off (the default)', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectPlainNotFound(await page(`/join/${await accountSlug(t, account.id)}/news`));
  });

  it('after the switch is turned off again, and the key the page embedded no longer registers anyone', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const slug = await accountSlug(t, account.id);
    await switchJoinPage(t, account, 'news', true);
    expect((await page(`/join/${slug}/news`)).statusCode).toBe(200);
    await switchJoinPage(t, account, 'news', false);
    expectPlainNotFound(await page(`/join/${slug}/news`));
    expect((await page(`/join/${slug}/news/manifest.webmanifest`)).statusCode).toBe(404);
  });

  it('when the page key was revoked on the keys page', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await switchJoinPage(t, account, 'news', true);
    await t.store.db
      .updateTable('api_keys')
      .set({ revoked_at: t.clock.now() })
      .where('id', '=', (await joinKeyId(t, account.id, 'news'))!)
      .execute();
    expectPlainNotFound(await page(`/join/${await accountSlug(t, account.id)}/news`));
  });

  it('when the key was sealed under another instance key (CLARION_SECRET_KEY changed), and on again issues one that works', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await switchJoinPage(t, account, 'news', true);
    const other = sealSecret(
      Buffer.alloc(32, 7),
      'clr_pk_sealed_elsewhere',
      (
        await t.store.db
          .selectFrom('channels')
          .select('id')
          .where('account_id', '=', account.id)
          .executeTakeFirstOrThrow()
      ).id,
    );
    await t.store.db
      .updateTable('channels')
      .set({ join_key_secret: other })
      .where('account_id', '=', account.id)
      .execute();
    const path = `/join/${await accountSlug(t, account.id)}/news`;
    expectPlainNotFound(await page(path));
    await switchJoinPage(t, account, 'news', false);
    await switchJoinPage(t, account, 'news', true);
    expect((await page(path)).statusCode).toBe(200);
  });

  it.each([
    ['an unknown slug', (slug: string) => `/join/${slug}x-unknown/news`],
    ['an unknown channel', (slug: string) => `/join/${slug}/sport`],
    ['a slug that cannot be one', () => '/join/Not_A_Slug!/news'],
    ['a code that cannot be one', (slug: string) => `/join/${slug}/News!`],
  ])('for %s', async (_what, url) => {
    const account = await t.newAccount({ channels: ['news'] });
    const slug = await accountSlug(t, account.id);
    await switchJoinPage(t, account, 'news', true);
    expectPlainNotFound(await page(url(slug)));
  });

  it("for another account's channel of the same code", async () => {
    const owner = await t.newAccount({ channels: ['news'] });
    const other = await t.newAccount({ channels: ['news'] });
    await switchJoinPage(t, owner, 'news', true);
    expectPlainNotFound(await page(`/join/${await accountSlug(t, other.id)}/news`));
  });

  it('answers the error envelope to a client that asks for JSON, and for the manifest', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const slug = await accountSlug(t, account.id);
    const json = await page(`/join/${slug}/news`, 'application/json');
    expectError({ ...json, body: json.json() }, 'not_found');
    const manifest = await page(`/join/${slug}/news/manifest.webmanifest`, '*/*');
    expectError({ ...manifest, body: manifest.json() }, 'not_found');
  });
});
