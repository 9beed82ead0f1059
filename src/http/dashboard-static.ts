import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { ClarionApp } from './app-types.ts';

/** The dashboard's files: plain HTML, CSS and JavaScript modules, no build step (docs/dashboard.md). */
export const WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url));

/**
 * Nothing but our own files may run or load: no inline script, no other origin (there is no CDN to allow, and an
 * injected tag could not phone home). Styles set from scripts through element.style are CSSOM, which CSP allows.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers every dashboard file carries; the public join pages (src/http/endpoints/join/) carry the same. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

function setDashboardHeaders(response: { setHeader(name: string, value: string): unknown }): void {
  for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) response.setHeader(name, value);
  // Revalidate every time (a 304 by ETag costs one round trip on localhost): an upgraded server never mixes old
  // and new modules in a browser's cache.
  response.setHeader('cache-control', 'no-cache');
}

/**
 * Serves web/ at /. One route per file, listed when the server starts (`wildcard: false`), rather than a catch-all
 * `/*`: a catch-all would also match /api/v1/anything and answer those with the dashboard's rules instead of the
 * API's. The dashboard routes in the browser with #/paths, so / is the only page the server needs to know.
 */
export async function registerDashboard(app: ClarionApp): Promise<void> {
  await app.register(fastifyStatic, {
    root: WEB_ROOT,
    prefix: '/',
    wildcard: false,
    index: 'index.html',
    decorateReply: false,
    cacheControl: false,
    setHeaders: setDashboardHeaders,
  });
}
