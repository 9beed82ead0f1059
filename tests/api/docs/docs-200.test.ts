import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /docs → 200', () => {
  it('serves the rendered docs as HTML, without a key and without any CDN', async () => {
    const response = await get(t.app, '/docs', null);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    const html = String(response.body);
    expect(html).toMatch(/<html/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/\/\/(cdn|unpkg|jsdelivr)/i);
  });

  it('answers HEAD for the page and its assets as GET does, without the body', async () => {
    const html = String((await get(t.app, '/docs', null)).body);
    const asset = [...html.matchAll(/(?:src|href)="([^"]+\.js)"/g)].map((match) => match[1]!)[0]!;
    for (const url of ['/docs', asset]) {
      const response = await t.app.inject({ method: 'HEAD', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toBe('');
    }
  });

  it('serves every script and stylesheet the page loads from this server', async () => {
    const html = String((await get(t.app, '/docs', null)).body);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.some((asset) => asset.endsWith('.js'))).toBe(true);
    for (const asset of assets) {
      expect(asset, asset).toMatch(/^\/docs\//);
      expect((await get(t.app, asset, null)).statusCode, asset).toBe(200);
    }
  });
});
