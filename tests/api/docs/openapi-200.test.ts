import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes } from '../../../src/http/error-catalog.ts';
import { registeredApiRoutes, routeCases } from '../../harness/api-routes.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
let spec: any;
beforeAll(async () => {
  t = await startTestApp();
  spec = (await get(t.app, '/api/v1/openapi.json', null)).body;
});
afterAll(async () => t.close());

/** Fastify's /notifications/:id is OpenAPI's /notifications/{id}. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const operation = (method: string, url: string) => spec.paths?.[openApiPath(url)]?.[method.toLowerCase()];
const documented = (method: string, url: string) => Object.keys(operation(method, url)?.responses ?? {});

describe('GET /api/v1/openapi.json → 200', () => {
  it('is served without a key, as JSON', async () => {
    const response = await get(t.app, '/api/v1/openapi.json', null);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(spec.openapi).toMatch(/^3\.1\./);
    const validator = new Validator();
    const result = await validator.validate(structuredClone(spec));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every method and path the app registers under /api/v1', () => {
    const routes = registeredApiRoutes(t.app);
    expect(routes.length).toBeGreaterThanOrEqual(11);
    const missing = routes
      .filter((route) => operation(route.method, route.url) === undefined)
      .map((route) => `${route.method} ${route.url}`);
    expect(missing).toEqual([]);
  });

  it('documents nothing the app does not serve', () => {
    const served = new Set(registeredApiRoutes(t.app).map((route) => `${route.method} ${openApiPath(route.url)}`));
    const paths = Object.entries(spec.paths as Record<string, Record<string, unknown>>).filter(([path]) =>
      path.startsWith('/api/v1/'),
    );
    const extra = paths
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .filter((name) => !served.has(name));
    expect(extra).toEqual([]);
  });

  it('documents the statuses every route can answer', () => {
    for (const route of routeCases('news')) {
      const statuses = documented(route.method, route.url);
      const name = `${route.method} ${route.url}`;
      // Every authenticated route: a bad key (401) and the per-key rate limit (429).
      expect(statuses, name).toEqual(expect.arrayContaining(['401', '429']));
      // Publishable keys are refused on secret-only routes.
      if (route.auth === 'secret') expect(statuses, name).toContain('403');
      // Every POST: bad JSON or Idempotency-Key (400), Idempotency-Key reuse (409), body limit (413), content type (415).
      if (route.method === 'POST') expect(statuses, name).toEqual(expect.arrayContaining(['400', '409', '413', '415']));
      // Every route with an id in its path or a channel in its body can name something that is not there.
      const namesChannel =
        route.body !== undefined && ('channelCode' in (route.body as object) || 'channel' in (route.body as object));
      if (route.url.includes(':') || namesChannel) expect(statuses, name).toContain('404');
    }
  });

  it('describes errors with the shared envelope listing every catalog code', () => {
    const envelope = spec.components.schemas.ErrorEnvelope;
    expect(envelope.properties.error.properties.code.enum).toEqual(errorCodes);
    const response = operation('POST', '/api/v1/notifications').responses['401'];
    expect(JSON.stringify(response)).toContain('ErrorEnvelope');
  });

  it('publishes the fields of every Live Activity template', () => {
    for (const name of ['ProgressFields', 'TimerFields', 'ScoreFields', 'StepsFields', 'MetricsFields', 'StatusFields'])
      expect(spec.components.schemas[name], name).toBeDefined();
    expect(spec.components.schemas.ProgressFields.properties.progress).toMatchObject({ minimum: 0, maximum: 1 });
    expect(spec.components.schemas.MetricsFields.properties.metrics).toMatchObject({ minItems: 1, maxItems: 4 });
    expect(spec.components.schemas.StatusFields.properties.state.enum).toEqual(['ok', 'warning', 'error', 'pending']);
  });

  it('declares Bearer authentication', () => {
    expect(spec.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});
