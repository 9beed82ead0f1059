import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { errorCatalog, errorCodes } from '../../src/http/error-catalog.ts';
import { signUp } from '../harness/dashboard-session.ts';
import { loadOperations, type Operation } from '../harness/openapi-operations.ts';
import { unreadableBecause } from '../harness/readable-message.ts';
import { startTestApp } from '../harness/test-app.ts';
import { requestFor, type FuzzRequest } from './request-arbitrary.ts';

/**
 * Property-based requests to every operation of the app's own OpenAPI document (docs/develop.md "Fuzz suite"): whatever
 * is sent, the answer is never a 5xx, a success comes in the media type the document gives it (JSON with
 * `success: true`, or e.g. the SVG of a join page's QR code), every error is the JSON envelope with a catalog code, its
 * status and a request id, and every validation message reads well. A fixed seed and few runs by default, so CI is fast and repeatable;
 * CLARION_FUZZ_RUNS and CLARION_FUZZ_SEED for long local runs (a failure prints the seed and path to replay it).
 */
const RUNS = Number(process.env.CLARION_FUZZ_RUNS ?? 30);
const SEED = Number(process.env.CLARION_FUZZ_SEED ?? 20_260_115);

const t = await startTestApp();
afterAll(async () => t.close());
const account = await t.newAccount({ channels: ['news'] });
const user = await signUp(t);
const operations = await loadOperations(t.app);
/** Good values by property name, so that some requests get all the way into the handlers. */
const hints = {
  channelCode: ['news'],
  channel: ['news'],
  code: ['news', 'fresh-channel'],
  platform: ['ios', 'android', 'web'],
};

describe('fuzz: every operation of /api/v1/openapi.json', () => {
  it('covers the API: more than 30 operations, each with its method', () => {
    expect(operations.length).toBeGreaterThan(30);
  });

  it.each(operations.map((operation, index) => [`${operation.method} ${operation.path}`, operation, index] as const))(
    '%s: no 5xx, every error in the envelope',
    async (_name, operation, index) => {
      await fc.assert(
        fc.asyncProperty(requestFor(operation, hints), async (request) => {
          await expectWellFormedAnswer(operation, request);
        }),
        { numRuns: RUNS, seed: SEED + index },
      );
    },
    Math.max(30_000, RUNS * 1_000),
  );
});

async function expectWellFormedAnswer(operation: Operation, request: FuzzRequest): Promise<void> {
  const response = await t.app.inject({
    method: request.method as 'GET',
    url: request.url,
    remoteAddress: request.remoteAddress,
    headers: {
      ...headersFor(operation, request),
      ...(request.contentType === undefined ? {} : { 'content-type': request.contentType }),
    },
    ...(request.payload === undefined ? {} : { payload: request.payload }),
  });
  const what = `${request.method} ${request.url} → ${response.statusCode} ${response.body.slice(0, 300)}`;
  expect(response.statusCode, what).toBeLessThan(500);
  const requestId = response.headers['x-request-id'];
  expect(requestId, what).toMatch(/^req_[0-9a-z]{26}$/);
  if (request.method === 'OPTIONS' && response.statusCode < 300) return;
  const mediaType = String(response.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (response.statusCode < 400) {
    expect(documentedTypes(operation, request.method, response.statusCode), what).toContain(mediaType);
    if (mediaType !== 'application/json') {
      expect(response.body.length, what).toBeGreaterThan(0);
      return;
    }
    expect(JSON.parse(response.body).success, what).toBe(true);
    return;
  }
  expect(mediaType, what).toBe('application/json');
  const body = JSON.parse(response.body);
  expect(Object.keys(body).sort(), what).toEqual(['error', 'success']);
  expect(body.success, what).toBe(false);
  expect(errorCodes, what).toContain(body.error.code);
  expect(errorCatalog[body.error.code as keyof typeof errorCatalog].status, what).toBe(response.statusCode);
  expect(body.error.requestId, what).toBe(requestId);
  expect(typeof body.error.message === 'string' && body.error.message.length > 0, what).toBe(true);
  if (body.error.code === 'validation_failed') {
    for (const problem of body.error.details.fields)
      expect(unreadableBecause(problem.message), `${what}: ${problem.field}`).toBeNull();
  }
}

/**
 * The media types the OpenAPI document gives a success of the operation that `method` reaches on this path (a fuzzed
 * request may use another method than `operation`'s); JSON when the document names none.
 */
function documentedTypes(operation: Operation, method: string, status: number): string[] {
  const reached =
    operations.find((candidate) => candidate.path === operation.path && candidate.method === method) ?? operation;
  const types = reached.responseTypes[String(status)] ?? [];
  return types.length > 0 ? types : ['application/json'];
}

function headersFor(operation: Operation, request: FuzzRequest): Record<string, string> {
  // Signing out would end the session every other case uses; sign-out gets a stranger's cookie instead.
  const session =
    operation.path === '/api/v1/auth/signout' ? { cookie: 'clarion_session=ended', csrfToken: 'x' } : user;
  switch (request.auth) {
    case 'none':
      return {};
    case 'secret':
      return { authorization: `Bearer ${account.secretKey}` };
    case 'publishable':
      return { authorization: `Bearer ${account.publishableKey}` };
    case 'session':
      return { cookie: session.cookie, 'x-csrf-token': session.csrfToken };
    case 'session-without-csrf':
      return { cookie: session.cookie };
    case 'garbage':
      return { authorization: request.garbage };
  }
}
