import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOIN_PAGE_VIEWS_BURST, JOIN_PAGE_VIEWS_PER_SECOND } from '../../../src/http/endpoints/join/join-routes.ts';
import { expectError } from '../../harness/api-expect.ts';
import { accountSlug, switchJoinPage } from '../../harness/join-pages.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  // Behind a trusted proxy on 127.0.0.1 (inject's own address), so X-Forwarded-For names the visitor.
  t = await startTestApp({ trustProxy: '127.0.0.1' });
});
afterAll(async () => t.close());

const view = (url: string, address: string, accept = 'text/html') =>
  t.app.inject({ method: 'GET', url, headers: { 'x-forwarded-for': address, accept } });

describe('GET /join/:slug/:code → 429', () => {
  it(`holds one address to ${JOIN_PAGE_VIEWS_BURST} views at once and ${JOIN_PAGE_VIEWS_PER_SECOND} a second, with a plain page and Retry-After; others go on`, async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await switchJoinPage(t, account, 'news', true);
    const path = `/join/${await accountSlug(t, account.id)}/news`;
    for (let i = 0; i < JOIN_PAGE_VIEWS_BURST; i += 1) expect((await view(path, '198.51.100.7')).statusCode).toBe(200);
    const limited = await view(path, '198.51.100.7');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(limited.headers['content-security-policy']).toContain("default-src 'self'");
    expect(limited.body).toContain('<h1>Too many requests</h1>');
    expect(limited.body).not.toContain('data-key');
    const json = await view(`${path}/manifest.webmanifest`, '198.51.100.7', 'application/json');
    expectError({ ...json, body: json.json() }, 'rate_limited');
    // Another visitor is not held up; a second later the first may view again.
    expect((await view(path, '198.51.100.8')).statusCode).toBe(200);
    t.clock.advance(1000);
    expect((await view(path, '198.51.100.7')).statusCode).toBe(200);
  });
});
