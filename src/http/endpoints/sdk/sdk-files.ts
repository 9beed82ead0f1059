import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ClarionApp } from '../../app-types.ts';

/** The browser SDK, its service worker and the join page's own files (docs/web-push.md). */
export const SDK_ROOT = fileURLToPath(new URL('../../../../web-sdk/', import.meta.url));

const JAVASCRIPT = 'text/javascript; charset=utf-8';

/** Each file served at /sdk/<name>, with its content type. */
const sdkFiles: Record<string, string> = {
  'clarion-web.js': JAVASCRIPT,
  'clarion-sw.js': JAVASCRIPT,
  'join-page.js': JAVASCRIPT,
  'join-page.css': 'text/css; charset=utf-8',
  'clarion-icon.svg': 'image/svg+xml',
  // The same bell, full-bleed, as PNG (rendered from clarion-icon.svg by headless Chromium): iOS takes only a PNG
  // apple-touch-icon for a Home Screen app, and browsers that install web apps want 512-pixel PNG icons.
  'clarion-icon-180.png': 'image/png',
  'clarion-icon-512.png': 'image/png',
};

/**
 * How long a browser may use its copy before asking again. Five minutes: customers' pages load the SDK from here on
 * every visit, so an upgraded instance reaches them within minutes, and asking again is cheap (the ETag answers 304
 * without a body). Browsers check a service worker script itself for updates past the HTTP cache anyway
 * (https://w3c.github.io/ServiceWorker/#dom-serviceworkerregistration-updateviacache, default "imports").
 */
const CACHE_CONTROL = 'public, max-age=300';

/**
 * Serves web-sdk/ at /sdk/. Read once at start (a few kilobytes), so every answer is the same bytes with one ETag.
 *
 * - CORS `*`: the SDK is imported as a module by customers' own sites (a cross-origin module script needs it), and
 *   the service worker is pulled in with importScripts from their service workers. The files are public and carry no
 *   credentials, so any origin may read them.
 * - `Cross-Origin-Resource-Policy: cross-origin`, so sites that isolate themselves (COEP) may load them too.
 * - `Service-Worker-Allowed: /join/` on the service worker: the join pages register it from /sdk/ with their own
 *   path as scope (one registration, and so one push subscription, per channel).
 */
export function registerSdkFiles(app: ClarionApp, baseUrl: string): void {
  for (const [name, contentType] of Object.entries(sdkFiles)) {
    const body = withBaseUrl(name, readFileSync(`${SDK_ROOT}${name}`), baseUrl);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    app.get(`/sdk/${name}`, { schema: { hide: true } }, async (request, reply) => {
      reply
        .header('content-type', contentType)
        .header('cache-control', CACHE_CONTROL)
        .header('etag', etag)
        .header('access-control-allow-origin', '*')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('x-content-type-options', 'nosniff');
      if (name === 'clarion-sw.js') reply.header('service-worker-allowed', '/join/');
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.send(body);
    });
  }
}

/**
 * The service worker reports receipts to Clarion (docs/engagement.md), also when a site pulls it into a worker of its
 * own origin: its placeholder becomes this instance's base URL (CLARION_BASE_URL).
 */
function withBaseUrl(name: string, body: Buffer, baseUrl: string): Buffer {
  if (name !== 'clarion-sw.js') return body;
  // JSON.stringify's string is a valid JavaScript string too; its quotes replace the placeholder's.
  return Buffer.from(body.toString('utf8').replace("'__CLARION_BASE_URL__'", JSON.stringify(baseUrl)));
}

/** If-None-Match holds one or more entity tags, possibly weak (W/"…"); any equal to ours means "unchanged". */
function matchesEtag(header: string | undefined, etag: string): boolean {
  return header !== undefined && header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
