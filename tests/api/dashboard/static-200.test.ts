import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_ROOT } from '../../../src/http/dashboard-static.ts';
import { expectError } from '../../harness/api-expect.ts';
import { rawRequest } from '../../harness/api-routes.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
const webFiles = filesUnder(WEB_ROOT).map((file) => `/${relative(WEB_ROOT, file)}`);
const modules = webFiles.filter((file) => file.endsWith('.js'));

describe('the dashboard at / → 200', () => {
  it('serves the page with a strict Content-Security-Policy and no secrets in its headers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.body).toContain('<main id="main"');
  });

  it('serves every file under web/, scripts as JavaScript', async () => {
    for (const file of webFiles) {
      const response = await t.app.inject({ method: 'GET', url: file });
      expect(response.statusCode, file).toBe(200);
      if (file.endsWith('.js'))
        expect(response.headers['content-type'], file).toMatch(/^(text|application)\/javascript/);
    }
  });

  it('preloads every module from index.html, so the first load fetches them in parallel', () => {
    const html = readFileSync(join(WEB_ROOT, 'index.html'), 'utf8');
    const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((match) => match[1]).sort();
    expect(preloaded).toEqual([...modules].sort());
  });

  it('loads nothing from another origin (no CDN: there may be no internet) and uses no inline script', () => {
    for (const file of webFiles) {
      const text = readFileSync(join(WEB_ROOT, file), 'utf8');
      expect(text, file).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
      expect(text, file).not.toMatch(/import\s[^;]*from\s+['"]https?:/);
      expect(text, file).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
      if (file.endsWith('.html')) expect(text, file).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('leaves the API its own answers: unknown /api paths still get the JSON envelope', async () => {
    expectError(await rawRequest(t.app, 'GET', '/api/v1/nope', null, undefined), 'not_found');
    expectError(await rawRequest(t.app, 'GET', '/no-such-page', null, undefined), 'not_found');
  });
});
