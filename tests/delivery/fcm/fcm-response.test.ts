import { describe, expect, it } from 'vitest';
import { mapFcmResponse, parseFcmError } from '../../../src/delivery/fcm/fcm-response.ts';

const FCM_ERROR = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

function body(status: string, message: string, details: unknown[] = []): string {
  return JSON.stringify({ error: { code: 0, message, status, details } });
}
const fcm = (errorCode: string) => ({ '@type': FCM_ERROR, errorCode });
const violation = (field: string) => ({
  '@type': BAD_REQUEST,
  fieldViolations: [{ field, description: `bad ${field}` }],
});

type Case = [string, number, string, number | null, Record<string, unknown>];

/** docs/protocols.md 3.4 / 3.5, and docs/design.md 3.3. */
const table: Case[] = [
  ['success', 200, '{"name":"projects/p/messages/1"}', null, { kind: 'delivered' }],
  [
    'UNREGISTERED',
    404,
    body('NOT_FOUND', 'Requested entity was not found.', [fcm('UNREGISTERED')]),
    null,
    { kind: 'token_dead', reason: 'token_unregistered', providerReason: 'UNREGISTERED' },
  ],
  [
    'bare NOT_FOUND for the token',
    404,
    body('NOT_FOUND', 'Requested entity was not found.'),
    null,
    { kind: 'token_dead', reason: 'token_unregistered', providerReason: 'NOT_FOUND' },
  ],
  [
    'NOT_FOUND for the URL',
    404,
    body('NOT_FOUND', 'The requested URL /v1/projects/x/messages:send was not found on this server.'),
    null,
    { kind: 'fatal', reason: 'fcm:NOT_FOUND' },
  ],
  [
    'INVALID_ARGUMENT about the token (message)',
    400,
    body('INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', [fcm('INVALID_ARGUMENT')]),
    null,
    { kind: 'token_dead', reason: 'token_invalid', providerReason: 'INVALID_ARGUMENT' },
  ],
  [
    'INVALID_ARGUMENT about the token (field)',
    400,
    body('INVALID_ARGUMENT', 'Invalid value', [violation('message.token')]),
    null,
    { kind: 'token_dead', reason: 'token_invalid' },
  ],
  [
    'INVALID_ARGUMENT about the payload',
    400,
    body('INVALID_ARGUMENT', "Invalid value at 'message.data[0].value' (TYPE_STRING), 12", [
      violation('message.data[0].value'),
    ]),
    null,
    { kind: 'rejected', reason: 'fcm:INVALID_ARGUMENT' },
  ],
  [
    'INVALID_ARGUMENT too big',
    400,
    body('INVALID_ARGUMENT', 'Message is too big', [fcm('INVALID_ARGUMENT')]),
    null,
    { kind: 'rejected', reason: 'fcm:INVALID_ARGUMENT' },
  ],
  [
    'SENDER_ID_MISMATCH',
    403,
    body('PERMISSION_DENIED', 'SenderId mismatch', [fcm('SENDER_ID_MISMATCH')]),
    null,
    { kind: 'token_dead', reason: 'token_invalid', providerReason: 'SENDER_ID_MISMATCH' },
  ],
  [
    'QUOTA_EXCEEDED (the target’s) with Retry-After',
    429,
    body('RESOURCE_EXHAUSTED', 'Quota exceeded', [fcm('QUOTA_EXCEEDED')]),
    120_000,
    { kind: 'retry', reason: 'fcm:QUOTA_EXCEEDED', retryAfterMs: 120_000 },
  ],
  [
    'QUOTA_EXCEEDED (the target’s) without Retry-After: 60 s',
    429,
    body('RESOURCE_EXHAUSTED', 'Quota exceeded', [fcm('QUOTA_EXCEEDED')]),
    null,
    { kind: 'retry', retryAfterMs: 60_000 },
  ],
  [
    "the project's quota: the whole project waits, 60 s without Retry-After",
    429,
    body('RESOURCE_EXHAUSTED', "Quota exceeded for quota metric 'Send requests'", [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'RATE_LIMIT_EXCEEDED',
        metadata: { quota_unit: '1/min/{project}', quota_limit: 'SendsPerMinutePerProject' },
      },
    ]),
    null,
    { kind: 'project_quota', reason: 'fcm:RESOURCE_EXHAUSTED', retryAfterMs: 60_000 },
  ],
  [
    'a bare RESOURCE_EXHAUSTED: the project’s quota, with its Retry-After',
    429,
    body('RESOURCE_EXHAUSTED', 'Quota exceeded'),
    90_000,
    { kind: 'project_quota', reason: 'fcm:RESOURCE_EXHAUSTED', retryAfterMs: 90_000 },
  ],
  [
    'UNAVAILABLE with Retry-After',
    503,
    body('UNAVAILABLE', 'unavailable', [fcm('UNAVAILABLE')]),
    7_000,
    { kind: 'retry', reason: 'fcm:UNAVAILABLE', retryAfterMs: 7_000 },
  ],
  [
    'UNAVAILABLE without Retry-After: 10 s',
    503,
    body('UNAVAILABLE', 'unavailable', [fcm('UNAVAILABLE')]),
    null,
    { kind: 'retry', retryAfterMs: 10_000 },
  ],
  [
    'INTERNAL',
    500,
    body('INTERNAL', 'internal', [fcm('INTERNAL')]),
    null,
    { kind: 'retry', reason: 'fcm:INTERNAL', retryAfterMs: 10_000 },
  ],
  [
    'THIRD_PARTY_AUTH_ERROR',
    401,
    body('UNAUTHENTICATED', 'Auth error from APNS or Web Push Service', [fcm('THIRD_PARTY_AUTH_ERROR')]),
    null,
    { kind: 'fatal', reason: 'fcm:THIRD_PARTY_AUTH_ERROR' },
  ],
  [
    'APNS_AUTH_ERROR (deprecated alias)',
    401,
    body('UNAUTHENTICATED', 'x', [fcm('APNS_AUTH_ERROR')]),
    null,
    { kind: 'fatal', reason: 'fcm:APNS_AUTH_ERROR' },
  ],
  [
    'UNAUTHENTICATED: refresh first',
    401,
    body('UNAUTHENTICATED', 'Request had invalid authentication credentials.'),
    null,
    { kind: 'refresh_token', reason: 'fcm:UNAUTHENTICATED' },
  ],
  [
    'PERMISSION_DENIED (IAM)',
    403,
    body('PERMISSION_DENIED', "Permission 'cloudmessaging.messages.create' denied"),
    null,
    { kind: 'fatal', reason: 'fcm:PERMISSION_DENIED' },
  ],
  [
    'UNSPECIFIED_ERROR 500',
    500,
    body('UNKNOWN', 'x', [fcm('UNSPECIFIED_ERROR')]),
    null,
    { kind: 'retry', reason: 'fcm:UNSPECIFIED_ERROR' },
  ],
  [
    'UNSPECIFIED_ERROR 400',
    400,
    body('UNKNOWN', 'x', [fcm('UNSPECIFIED_ERROR')]),
    null,
    { kind: 'rejected', reason: 'fcm:UNSPECIFIED_ERROR' },
  ],
  [
    'proxy HTML 502',
    502,
    '<html>Bad Gateway</html>',
    null,
    { kind: 'retry', reason: 'fcm:HTTP502', retryAfterMs: 10_000 },
  ],
  ['proxy HTML 413', 413, '<html>Too large</html>', null, { kind: 'rejected', reason: 'fcm:HTTP413' }],
  ['bare 401 without body: refresh first', 401, '', null, { kind: 'refresh_token', reason: 'fcm:HTTP401' }],
];

describe('mapFcmResponse', () => {
  it.each(table)('%s', (_name, status, text, retryAfterMs, expected) => {
    expect(mapFcmResponse({ status, body: text, retryAfterMs, afterRefresh: false })).toMatchObject(expected);
  });

  it.each([[body('UNAUTHENTICATED', 'Request had invalid authentication credentials.')], ['']])(
    'is fatal, naming CLARION_FCM_SERVICE_ACCOUNT_FILE, when a 401 survives a refresh',
    (text) => {
      const outcome = mapFcmResponse({ status: 401, body: text, retryAfterMs: null, afterRefresh: true });
      expect(outcome).toMatchObject({ kind: 'fatal' });
      expect(outcome.kind === 'fatal' && outcome.fix).toMatch(/CLARION_FCM_SERVICE_ACCOUNT_FILE/);
    },
  );

  it.each(['THIRD_PARTY_AUTH_ERROR', 'PERMISSION_DENIED'])(
    'names CLARION_FCM_SERVICE_ACCOUNT_FILE in the fix for %s',
    (code) => {
      const text = code === 'PERMISSION_DENIED' ? body(code, 'denied') : body('UNAUTHENTICATED', 'x', [fcm(code)]);
      const outcome = mapFcmResponse({
        status: code === 'PERMISSION_DENIED' ? 403 : 401,
        body: text,
        retryAfterMs: null,
        afterRefresh: false,
      });
      expect(outcome.kind === 'fatal' && outcome.fix).toMatch(/CLARION_FCM_SERVICE_ACCOUNT_FILE/);
    },
  );
});

describe('parseFcmError', () => {
  it('reads errorCode from the FcmError detail, the status, the message and violated fields', () => {
    expect(
      parseFcmError(
        body('NOT_FOUND', 'gone', [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'x' },
          fcm('UNREGISTERED'),
          violation('message.token'),
        ]),
      ),
    ).toEqual({
      errorCode: 'UNREGISTERED',
      status: 'NOT_FOUND',
      message: 'gone',
      violatedFields: ['message.token'],
      quotaScope: null,
    });
  });

  it("reads whose quota an ErrorInfo names: the project's, or another", () => {
    const info = (metadata: Record<string, string>) => ({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'RATE_LIMIT_EXCEEDED',
      metadata,
    });
    expect(
      parseFcmError(
        body('RESOURCE_EXHAUSTED', 'q', [
          info({ quota_unit: '1/min/{project}', quota_limit: 'SendsPerMinutePerProject' }),
        ]),
      ).quotaScope,
    ).toBe('project');
    expect(
      parseFcmError(body('RESOURCE_EXHAUSTED', 'q', [info({ quota_limit: 'SendsPerMinutePerProject' })])).quotaScope,
    ).toBe('project');
    expect(
      parseFcmError(
        body('RESOURCE_EXHAUSTED', 'q', [
          info({ quota_unit: '1/min/{device}', quota_limit: 'SendsPerMinutePerDevice' }),
        ]),
      ).quotaScope,
    ).toBe('other');
  });

  it.each(['', 'nonsense', '{"error":"string"}', '[]', 'null'])('tolerates %s', (text) => {
    expect(parseFcmError(text)).toEqual({
      errorCode: null,
      status: null,
      message: '',
      violatedFields: [],
      quotaScope: null,
    });
  });
});
