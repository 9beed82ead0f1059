import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredApiRoutes } from '../../harness/api-routes.ts';
import { get } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
let spec: any;
beforeAll(async () => {
  t = await startWebhookApp();
  spec = (await get(t.app, '/api/v1/openapi.json', null)).body;
});
afterAll(async () => t.close());

const webhookRoutes = [
  'POST /api/v1/webhooks',
  'GET /api/v1/webhooks',
  'GET /api/v1/webhooks/:id',
  'GET /api/v1/webhooks/:id/secret',
  'DELETE /api/v1/webhooks/:id',
  'POST /api/v1/webhooks/:id/rotate-secret',
  'POST /api/v1/webhooks/:id/enable',
  'POST /api/v1/webhooks/:id/test',
  'GET /api/v1/webhooks/:id/messages',
  'POST /api/v1/webhook-messages/:id/retry',
];

describe('the webhook routes in GET /api/v1/openapi.json', () => {
  it('registers exactly the webhook routes of docs/webhooks.md', () => {
    const registered = registeredApiRoutes(t.app)
      .map((route) => `${route.method} ${route.url}`)
      .filter((name) => name.includes('/webhook'));
    expect(registered.sort()).toEqual([...webhookRoutes].sort());
  });

  it.each(webhookRoutes)('%s documents every status it can answer, under the webhooks tag', (name) => {
    const [method, url] = name.split(' ') as [string, string];
    const operation = spec.paths[url.replace(/:([a-z]+)/g, '{$1}')]?.[method.toLowerCase()];
    expect(operation, name).toBeDefined();
    expect(operation.tags).toEqual(['webhooks']);
    const statuses = Object.keys(operation.responses);
    expect(statuses).toEqual(expect.arrayContaining(['401', '403', '429']));
    if (url.includes(':')) expect(statuses).toContain('404');
    if (method === 'POST') expect(statuses).toEqual(expect.arrayContaining(['400', '409', '413', '415']));
    expect(statuses.some((status) => status.startsWith('2'))).toBe(true);
  });

  it('never puts the secret in the list or read responses', () => {
    const listed = spec.paths['/api/v1/webhooks'].get.responses['200'];
    const read = spec.paths['/api/v1/webhooks/{id}'].get.responses['200'];
    for (const response of [listed, read]) expect(JSON.stringify(response)).not.toContain('"secret"');
    expect(JSON.stringify(spec.paths['/api/v1/webhooks'].post.responses['201'])).toContain('"secret"');
  });
});
