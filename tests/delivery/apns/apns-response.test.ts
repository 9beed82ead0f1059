import { describe, expect, it } from 'vitest';
import {
  APNS_SERVER_ERROR_RETRY_MS,
  apnsReasonRules,
  mapApnsResponse,
  parseApnsErrorBody,
  parseApnsReason,
} from '../../../src/delivery/apns/apns-response.ts';
import { apnsReasons } from '../../../tools/fakes/index.ts';

type Expected =
  | ['delivered']
  | ['token_dead', 'token_unregistered' | 'token_invalid']
  | ['retry']
  | ['renew_token']
  | ['rejected']
  | ['fatal', RegExp];

/** Every status + reason of docs/protocols.md 1.5, and what Clarion must do with it (docs/design.md 3.3). */
const table: Array<[number, string, Expected]> = [
  [400, 'BadCollapseId', ['rejected']],
  [400, 'BadDeviceToken', ['token_dead', 'token_invalid']],
  [400, 'BadExpirationDate', ['rejected']],
  [400, 'BadMessageId', ['rejected']],
  [400, 'BadPriority', ['rejected']],
  [400, 'BadTopic', ['fatal', /CLARION_APNS_TOPIC/]],
  [400, 'DeviceTokenNotForTopic', ['token_dead', 'token_invalid']],
  [400, 'DuplicateHeaders', ['rejected']],
  [400, 'IdleTimeout', ['retry']],
  [400, 'InvalidPushType', ['rejected']],
  [400, 'MissingDeviceToken', ['token_dead', 'token_invalid']],
  [400, 'MissingTopic', ['fatal', /CLARION_APNS_TOPIC/]],
  [400, 'PayloadEmpty', ['rejected']],
  [400, 'TopicDisallowed', ['fatal', /CLARION_APNS_TOPIC/]],
  [400, 'MissingChannelId', ['rejected']],
  [400, 'BadChannelId', ['rejected']],
  [400, 'ChannelNotRegistered', ['token_dead', 'token_invalid']],
  [400, 'CannotCreateChannelConfig', ['rejected']],
  [400, 'MissingPushType', ['rejected']],
  [403, 'BadCertificate', ['fatal', /CLARION_APNS_URL/]],
  [403, 'BadCertificateEnvironment', ['fatal', /CLARION_APNS_URL/]],
  [403, 'ExpiredProviderToken', ['renew_token']],
  [403, 'Forbidden', ['fatal', /CLARION_APNS_KEY_FILE/]],
  [403, 'InvalidProviderToken', ['fatal', /CLARION_APNS_KEY_FILE, CLARION_APNS_KEY_ID and CLARION_APNS_TEAM_ID/]],
  [403, 'MissingProviderToken', ['fatal', /CLARION_APNS_KEY_ID/]],
  [403, 'UnrelatedKeyIdInToken', ['fatal', /CLARION_APNS_KEY_ID/]],
  [403, 'BadEnvironmentKeyIdInToken', ['fatal', /CLARION_APNS_URL/]],
  [403, 'BadEnvironmentKeyInToken', ['fatal', /CLARION_APNS_URL/]],
  [404, 'BadPath', ['fatal', /CLARION_APNS_URL/]],
  [405, 'MethodNotAllowed', ['fatal', /CLARION_APNS_URL/]],
  [410, 'ExpiredToken', ['token_dead', 'token_unregistered']],
  [410, 'Unregistered', ['token_dead', 'token_unregistered']],
  [413, 'PayloadTooLarge', ['rejected']],
  [429, 'TooManyProviderTokenUpdates', ['retry']],
  [429, 'TooManyRequests', ['retry']],
  [500, 'InternalServerError', ['retry']],
  [503, 'ServiceUnavailable', ['retry']],
  [503, 'Shutdown', ['retry']],
];

describe('mapApnsResponse', () => {
  it('answers 200 with delivered', () => {
    expect(mapApnsResponse({ status: 200, reason: null, retryAfterMs: null })).toEqual({ kind: 'delivered' });
  });

  it.each(table)('%i %s → %j', (status, reason, [kind, detail]) => {
    const outcome = mapApnsResponse({ status, reason, retryAfterMs: null });
    expect(outcome.kind).toBe(kind);
    if (outcome.kind === 'token_dead')
      expect(outcome).toEqual({
        kind: 'token_dead',
        reason: detail,
        providerReason: reason,
        ...(status === 410 ? { invalidSince: null } : {}),
      });
    if (outcome.kind === 'retry')
      expect(outcome).toEqual({
        kind: 'retry',
        reason: `apns:${reason}`,
        retryAfterMs: status >= 500 ? APNS_SERVER_ERROR_RETRY_MS : null,
      });
    if (outcome.kind === 'rejected') expect(outcome).toEqual({ kind: 'rejected', reason: `apns:${reason}` });
    if (outcome.kind === 'renew_token') expect(outcome.reason).toBe('apns:ExpiredProviderToken');
    if (outcome.kind === 'fatal') {
      expect(outcome.reason).toBe(`apns:${reason}`);
      expect(outcome.fix).toMatch(detail as RegExp);
    }
  });

  it('covers every reason of the table with an explicit rule, and nothing beyond it', () => {
    expect(Object.keys(apnsReasonRules).sort()).toEqual(table.map(([, reason]) => reason).sort());
  });

  it('has a rule for every reason the fake APNs can answer, except its own non-Apple BadPayload', () => {
    const missing = Object.keys(apnsReasons).filter((reason) => !Object.hasOwn(apnsReasonRules, reason));
    expect(missing).toEqual(['BadPayload']);
  });

  it('honours Retry-After on retryable answers', () => {
    expect(mapApnsResponse({ status: 429, reason: 'TooManyRequests', retryAfterMs: 30_000 })).toEqual({
      kind: 'retry',
      reason: 'apns:TooManyRequests',
      retryAfterMs: 30_000,
    });
    expect(mapApnsResponse({ status: 503, reason: 'ServiceUnavailable', retryAfterMs: 30 * 60_000 })).toMatchObject({
      retryAfterMs: 30 * 60_000,
    });
  });

  it("retries 5xx after Apple's 15 minutes, not the queue's first seconds, even when Retry-After is shorter", () => {
    expect(APNS_SERVER_ERROR_RETRY_MS).toBe(15 * 60_000);
    for (const [status, reason] of [
      [500, 'InternalServerError'],
      [503, 'ServiceUnavailable'],
      [503, 'Shutdown'],
      [502, null],
    ] as const) {
      expect(mapApnsResponse({ status, reason, retryAfterMs: null })).toMatchObject({
        kind: 'retry',
        retryAfterMs: 15 * 60_000,
      });
      expect(mapApnsResponse({ status, reason, retryAfterMs: 5_000 })).toMatchObject({
        kind: 'retry',
        retryAfterMs: 15 * 60_000,
      });
    }
    expect(mapApnsResponse({ status: 429, reason: 'TooManyRequests', retryAfterMs: null })).toMatchObject({
      kind: 'retry',
      retryAfterMs: null,
    });
  });

  it("carries a 410's timestamp as the moment the token was last known invalid", () => {
    expect(
      mapApnsResponse({ status: 410, reason: 'Unregistered', retryAfterMs: null, timestamp: 1_700_000_000_000 }),
    ).toEqual({
      kind: 'token_dead',
      reason: 'token_unregistered',
      providerReason: 'Unregistered',
      invalidSince: 1_700_000_000_000,
    });
    expect(
      mapApnsResponse({ status: 400, reason: 'BadDeviceToken', retryAfterMs: null, timestamp: 1_700_000_000_000 }),
    ).not.toHaveProperty('invalidSince');
  });

  it.each([
    [500, null, 'retry'],
    [502, null, 'retry'],
    [429, 'SomethingNew', 'retry'],
    [410, 'SomethingNew', 'token_dead'],
    [403, 'SomethingNew', 'fatal'],
    [400, 'BadPayload', 'rejected'],
    [400, null, 'rejected'],
  ] as const)('decides an unknown reason by status: %i %s → %s', (status, reason, kind) => {
    const outcome = mapApnsResponse({ status, reason, retryAfterMs: null });
    expect(outcome.kind).toBe(kind);
    const label =
      outcome.kind === 'token_dead'
        ? `apns:${outcome.providerReason}`
        : outcome.kind === 'delivered'
          ? ''
          : outcome.reason;
    expect(label).toBe(reason === null ? `apns:HTTP${status}` : `apns:${reason}`);
  });

  it('does not treat inherited property names as reasons', () => {
    expect(mapApnsResponse({ status: 400, reason: 'constructor', retryAfterMs: null }).kind).toBe('rejected');
  });
});

describe('parseApnsReason', () => {
  it.each([
    ['{"reason":"BadDeviceToken"}', 'BadDeviceToken'],
    ['{"reason":"Unregistered","timestamp":1700000000000}', 'Unregistered'],
    ['', null],
    ['<html>Bad gateway</html>', null],
    ['{"error":"x"}', null],
    ['null', null],
  ])('%s → %s', (body, reason) => {
    expect(parseApnsReason(body)).toBe(reason);
  });

  it.each([
    ['{"reason":"Unregistered","timestamp":1700000000000}', { reason: 'Unregistered', timestamp: 1_700_000_000_000 }],
    ['{"reason":"Unregistered","timestamp":"soon"}', { reason: 'Unregistered', timestamp: null }],
    ['{"reason":"BadDeviceToken"}', { reason: 'BadDeviceToken', timestamp: null }],
    ['<html>Bad gateway</html>', { reason: null, timestamp: null }],
  ])('parseApnsErrorBody %s', (body, expected) => {
    expect(parseApnsErrorBody(body)).toEqual(expected);
  });
});
