import fc from 'fast-check';
import { newId, type IdKind } from '../../src/domain/ids.ts';
import type { Operation } from '../harness/openapi-operations.ts';
import { junkValue, mutated, oddStrings, validish } from './schema-arbitrary.ts';

/** Who a fuzzed request claims to be. */
export type FuzzAuth = 'none' | 'secret' | 'publishable' | 'session' | 'session-without-csrf' | 'garbage';

export interface FuzzRequest {
  method: string;
  /** Path and query, percent-encoded as sent. */
  url: string;
  auth: FuzzAuth;
  /** The Authorization header value for `garbage`. */
  garbage: string;
  /** The body as sent (undefined: none) and its Content-Type (undefined: none). */
  payload: string | undefined;
  contentType: string | undefined;
  remoteAddress: string;
}

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 60,
});

const garbageAuthorization = fc.oneof(
  printable.map((text) => `Bearer ${text}`),
  fc.stringMatching(/^[A-Za-z0-9_-]{32}$/).map((text) => `Bearer clr_sk_${text}`),
  fc.stringMatching(/^[A-Za-z0-9_-]{32}$/).map((text) => `Bearer clr_pk_${text}`),
  fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'bearer clr_sk_', 'Token abc', ''),
  printable,
);

const idKinds: IdKind[] = [
  'notification',
  'subscriber',
  'liveActivity',
  'webhook',
  'webhookMessage',
  'apiKey',
  'account',
  'channel',
];

/** A path parameter as it appears in the URL: ids of every kind, channel codes, odd and over-long strings. */
const pathValue = fc.oneof(
  { arbitrary: fc.constantFrom(...idKinds).map((kind) => newId(kind)), weight: 2 },
  { arbitrary: fc.constantFrom('news', 'missing-channel', 'a'), weight: 1 },
  { arbitrary: fc.string({ maxLength: 30 }).map(encodePart), weight: 1 },
  { arbitrary: fc.constantFrom(...oddStrings.filter((value) => value !== '')).map(encodePart), weight: 3 },
  { arbitrary: fc.integer({ min: 90, max: 130 }).map((length) => 'n'.repeat(length)), weight: 1 },
  { arbitrary: fc.constantFrom('%E0%A4%A', '%', '%zz', '%00', '..', '.', '%2F', '%C0%AF'), weight: 1 },
);

/** Percent-encodes any string; a lone surrogate (which has no UTF-8 form) goes as U+FFFD, as a browser sends it. */
function encodePart(value: string): string {
  return encodeURIComponent(
    value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  );
}

const contentTypes = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/problem+json',
  'garbage',
  '',
];

/** Bodies that are not JSON, or not what anyone expects: broken syntax, deep nesting, over the 64 KiB limit. */
const rawPayload = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '{',
    '[1,2',
    'null',
    '"text"',
    '42',
    'true',
    '{"a":1,"a":2}',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"x":1}}}',
    'x=1&y=2',
    '\u0000',
  ),
  fc.integer({ min: 100, max: 20_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.integer({ min: 60_000, max: 80_000 }).map((length) => JSON.stringify({ title: 'x'.repeat(length) })),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

/**
 * One request to `operation`: usually its own method and a body built from its schema (valid-ish, with one field
 * broken, or junk), with path and query parameters of every odd sort, any content type and any credentials.
 */
export function requestFor(operation: Operation, hints: Record<string, string[]>): fc.Arbitrary<FuzzRequest> {
  const body = operation.body;
  const jsonBody = body
    ? fc.oneof(
        { arbitrary: validish(body, hints), weight: 4 },
        { arbitrary: mutated(validish(body, hints)), weight: 3 },
        { arbitrary: junkValue, weight: 1 },
      )
    : junkValue;
  const payload = fc.oneof(
    {
      arbitrary: jsonBody.map((value) => ({
        payload: JSON.stringify(value) as string | undefined,
        contentType: 'application/json' as string | undefined,
      })),
      weight: body ? 8 : 1,
    },
    { arbitrary: fc.constant({ payload: undefined, contentType: undefined }), weight: body ? 1 : 8 },
    {
      arbitrary: fc
        .tuple(rawPayload, fc.constantFrom(...contentTypes))
        .map(([text, type]) => ({ payload: text, contentType: type || undefined })),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(jsonBody, fc.constantFrom(...contentTypes))
        .map(([value, type]) => ({ payload: JSON.stringify(value), contentType: type || undefined })),
      weight: 1,
    },
  );
  const query = fc.array(
    fc.oneof(
      ...operation.queryParams.map((parameter) =>
        fc
          .oneof(validish(parameter.schema, hints, parameter.name), junkValue)
          .map((value) => [parameter.name, typeof value === 'string' ? value : JSON.stringify(value)] as const),
      ),
      fc.tuple(fc.constantFrom('unknown', 'limit', 'cursor', '__proto__', ''), fc.string({ maxLength: 20 })),
    ),
    { maxLength: 4 },
  );
  const method = fc.oneof(
    { arbitrary: fc.constant(operation.method), weight: 19 },
    { arbitrary: fc.constantFrom('PUT', 'PATCH', 'DELETE', 'GET', 'POST', 'OPTIONS'), weight: 1 },
  );
  // Mostly the credentials the operation takes, so requests reach its handler; every other kind too.
  const natural: FuzzAuth = operation.auth === 'session' ? 'session' : operation.auth === 'none' ? 'none' : 'secret';
  const auth = fc.oneof(
    { arbitrary: fc.constant(natural), weight: 5 },
    {
      arbitrary: fc.constantFrom<FuzzAuth>(
        'none',
        'secret',
        'publishable',
        'session',
        'session-without-csrf',
        'garbage',
      ),
      weight: 3,
    },
  );
  return fc
    .record({
      method,
      auth,
      garbage: garbageAuthorization,
      params: fc.array(pathValue, { minLength: 4, maxLength: 4 }),
      query,
      payload,
      remoteAddress: fc.ipV4(),
    })
    .map(({ method, auth, garbage, params, query, payload, remoteAddress }) => {
      let index = 0;
      const path = operation.path.replace(/\{\w+\}/g, () => params[index++]!);
      const search =
        query.length === 0
          ? ''
          : `?${new URLSearchParams(query.map(([name, value]): [string, string] => [name, value])).toString()}`;
      return {
        method,
        url: path + search,
        auth,
        garbage,
        payload: payload.payload,
        contentType: payload.contentType,
        remoteAddress,
      };
    });
}
