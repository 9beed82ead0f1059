import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /sdk/* → 200', () => {
  it.each(['/sdk/clarion-web.js', '/sdk/clarion-sw.js', '/sdk/join-page.js'])(
    'serves %s as JavaScript, to any origin, cached briefly and revalidated by ETag',
    async (url) => {
      const response = await t.app.inject({ method: 'GET', url, headers: { origin: 'https://shop.example' } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['cache-control']).toBe('public, max-age=300');
      expect(response.body.length).toBeGreaterThan(500);
      const etag = String(response.headers.etag);
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': `W/"other", ${etag}` } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect((await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': '"stale"' } })).statusCode).toBe(
        200,
      );
    },
  );

  it('lets the join pages use the service worker with their own path as scope', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/sdk/clarion-sw.js' });
    expect(response.headers['service-worker-allowed']).toBe('/join/');
    expect(response.body).toContain("addEventListener('push'");
    expect(response.body).toContain("addEventListener('notificationclick'");
  });

  it('exports subscribe and unsubscribe from the SDK module', async () => {
    const body = (await t.app.inject({ method: 'GET', url: '/sdk/clarion-web.js' })).body;
    expect(body).toMatch(/export async function subscribe\(/);
    expect(body).toMatch(/export async function unsubscribe\(/);
    expect(body).toMatch(/export const Clarion = /);
  });

  it('serves the join page stylesheet and icons with their types', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/sdk/join-page.css' })).headers['content-type']).toBe(
      'text/css; charset=utf-8',
    );
    expect((await t.app.inject({ method: 'GET', url: '/sdk/clarion-icon.svg' })).headers['content-type']).toBe(
      'image/svg+xml',
    );
    for (const size of [180, 512]) {
      const png = await t.app.inject({ method: 'GET', url: `/sdk/clarion-icon-${size}.png` });
      expect(png.headers['content-type']).toBe('image/png');
      // The PNG header's width and height (IHDR, bytes 16–23).
      expect([png.rawPayload.readUInt32BE(16), png.rawPayload.readUInt32BE(20)]).toEqual([size, size]);
    }
  });

  it('answers HEAD like GET without the body', async () => {
    const response = await t.app.inject({ method: 'HEAD', url: '/sdk/clarion-web.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });
});
