import { describe, expect, it } from 'vitest';
import {
  guardAgainstMisconfiguration,
  MISCONFIGURATION_MIN_BATCH,
  retryGroupDelayMs,
  settleBatch,
  type BatchSettlement,
  type SettleOptions,
} from '../../../src/delivery/send-batch.ts';
import { APNS_SERVER_ERROR_RETRY_MS } from '../../../src/delivery/apns/apns-response.ts';
import { RECONNECT_RETRY_CAP_MS } from '../../../src/queue/retry-policy.ts';
import type { DeliveryOutcome, SendOutcome } from '../../../src/delivery/delivery-outcome.ts';
import { MAX_SEND_ROUNDS } from '../../../src/delivery/job-kinds.ts';

const delivered: DeliveryOutcome = { kind: 'delivered' };
const unregistered = (invalidSince?: number): DeliveryOutcome => ({
  kind: 'token_dead',
  reason: 'token_unregistered',
  providerReason: 'Unregistered',
  ...(invalidSince === undefined ? {} : { invalidSince }),
});
const badToken: DeliveryOutcome = { kind: 'token_dead', reason: 'token_invalid', providerReason: 'BadDeviceToken' };
const retry = (retryAfterMs: number | null = null): DeliveryOutcome => ({
  kind: 'retry',
  reason: 'apns:TooManyRequests',
  retryAfterMs,
});
const lost: DeliveryOutcome = {
  kind: 'retry',
  reason: 'apns:connection_lost',
  retryAfterMs: null,
  connectionLost: true,
};
const rejected: DeliveryOutcome = { kind: 'rejected', reason: 'apns:PayloadTooLarge' };
const fatal: DeliveryOutcome = { kind: 'fatal', reason: 'apns:InvalidProviderToken', fix: 'check the key' };

const none: BatchSettlement = {
  delivered: [],
  skipped: [],
  held: [],
  failed: [],
  dead: [],
  retry: [],
  fatal: null,
  misconfiguredOrigins: [],
  learned: [],
};

/** One row per rule: outcomes by subscriber id, options, and the settlement expected. */
const table: Array<[string, Record<string, SendOutcome>, SettleOptions, Partial<BatchSettlement>]> = [
  ['empty batch', {}, { round: 0 }, {}],
  ['delivered are counted', { a: delivered, b: delivered }, { round: 0 }, { delivered: ['a', 'b'] }],
  [
    'an APNs environment learned on delivery is kept',
    {
      a: { kind: 'delivered', apnsEnvironment: 'sandbox' },
      b: { kind: 'delivered', apnsEnvironment: 'production' },
      c: delivered,
    },
    { round: 0 },
    {
      delivered: ['a', 'b', 'c'],
      learned: [
        { id: 'a', environment: 'sandbox' },
        { id: 'b', environment: 'production' },
      ],
    },
  ],
  [
    'rejected fail with the provider reason',
    { a: rejected },
    { round: 0 },
    { failed: [{ id: 'a', reason: 'apns:PayloadTooLarge' }] },
  ],
  [
    'dead tokens fail and are unsubscribed',
    { a: unregistered(), b: badToken },
    { round: 0 },
    {
      failed: [
        { id: 'a', reason: 'token_unregistered' },
        { id: 'b', reason: 'token_invalid' },
      ],
      dead: [
        { id: 'a', reason: 'token_unregistered' },
        { id: 'b', reason: 'token_invalid' },
      ],
    },
  ],
  [
    '410 before the last registration keeps the subscriber',
    { a: unregistered(1_000), b: unregistered(3_000), c: unregistered() },
    { round: 0, registeredAt: () => 2_000 },
    {
      failed: [
        { id: 'a', reason: 'token_unregistered' },
        { id: 'b', reason: 'token_unregistered' },
        { id: 'c', reason: 'token_unregistered' },
      ],
      dead: [
        { id: 'b', reason: 'token_unregistered' },
        { id: 'c', reason: 'token_unregistered' },
      ],
    },
  ],
  [
    '410 with a timestamp but no known registration unsubscribes',
    { a: unregistered(1_000) },
    { round: 0, registeredAt: () => null },
    { failed: [{ id: 'a', reason: 'token_unregistered' }], dead: [{ id: 'a', reason: 'token_unregistered' }] },
  ],
  [
    'retries go to the next round with the longest Retry-After',
    { a: retry(5_000), b: retry(90_000), c: retry() },
    { round: 0 },
    { retry: [{ ids: ['a', 'b', 'c'], retryAfterMs: 90_000, connectionLost: false }] },
  ],
  [
    'retries without Retry-After leave the backoff to the queue',
    { a: retry() },
    { round: 3 },
    { retry: [{ ids: ['a'], retryAfterMs: null, connectionLost: false }] },
  ],
  [
    "pushes lost with their connection are retried apart, never behind another push's wait (an APNs 5xx's 15 minutes)",
    { a: retry(APNS_SERVER_ERROR_RETRY_MS), b: lost, c: lost },
    { round: 0 },
    {
      retry: [
        { ids: ['b', 'c'], retryAfterMs: null, connectionLost: true },
        { ids: ['a'], retryAfterMs: APNS_SERVER_ERROR_RETRY_MS, connectionLost: false },
      ],
    },
  ],
  [
    'the last round turns retries into retry_exhausted',
    { a: retry(), b: delivered },
    { round: MAX_SEND_ROUNDS - 1 },
    { delivered: ['b'], failed: [{ id: 'a', reason: 'retry_exhausted' }] },
  ],
  [
    'maxRounds is respected',
    { a: retry() },
    { round: 1, maxRounds: 2 },
    { failed: [{ id: 'a', reason: 'retry_exhausted' }] },
  ],
  [
    'a fatal answer fails every push not delivered and unsubscribes nobody',
    { a: delivered, b: fatal, c: badToken, d: retry() },
    { round: 0 },
    {
      delivered: ['a'],
      failed: [
        { id: 'b', reason: 'apns:InvalidProviderToken' },
        { id: 'c', reason: 'apns:InvalidProviderToken' },
        { id: 'd', reason: 'apns:InvalidProviderToken' },
      ],
      fatal: { reason: 'apns:InvalidProviderToken', fix: 'check the key' },
    },
  ],
  [
    'held pushes wait in one group per moment their quiet hours end',
    {
      a: { kind: 'held', until: 7_000 },
      b: delivered,
      c: { kind: 'held', until: 9_000 },
      d: { kind: 'held', until: 7_000 },
    },
    { round: 0 },
    {
      delivered: ['b'],
      held: [
        { until: 7_000, ids: ['a', 'd'] },
        { until: 9_000, ids: ['c'] },
      ],
    },
  ],
  [
    'a skip stays a skip in any round, beside a fatal answer too: nothing was sent to it',
    {
      a: { kind: 'skipped', reason: 'silent_not_supported' },
      b: fatal,
      c: { kind: 'skipped', reason: 'unsubscribed' },
    },
    { round: MAX_SEND_ROUNDS - 1 },
    {
      skipped: [
        { id: 'a', reason: 'silent_not_supported' },
        { id: 'c', reason: 'unsubscribed' },
      ],
      failed: [{ id: 'b', reason: 'apns:InvalidProviderToken' }],
      fatal: { reason: 'apns:InvalidProviderToken', fix: 'check the key' },
    },
  ],
];

describe('settleBatch', () => {
  it.each(table)('%s', (_name, outcomes, options, expected) => {
    expect(settleBatch(new Map(Object.entries(outcomes)), options)).toEqual({ ...none, ...expected });
  });

  it('sends pushes lost with their connection again at once, then after a small jittered backoff that stays small', () => {
    const lostGroup = { ids: ['a'], retryAfterMs: null, connectionLost: true };
    expect(retryGroupDelayMs(lostGroup, 1, () => 0.999)).toBe(0);
    const delays = [2, 3, 5, 8, 14].map((round) => retryGroupDelayMs(lostGroup, round, () => 0.999));
    for (const delay of delays) expect(delay).toBeLessThanOrEqual(RECONNECT_RETRY_CAP_MS);
    expect(delays.at(-1)).toBeGreaterThan(delays[0]!);
    // Jittered: spread between 0 and the round's ceiling.
    expect(retryGroupDelayMs(lostGroup, 5, () => 0)).toBe(0);
    // Any other retry keeps the queue's exponential backoff and the provider's wait.
    expect(
      retryGroupDelayMs({ ids: ['b'], retryAfterMs: APNS_SERVER_ERROR_RETRY_MS, connectionLost: false }, 1, () => 0.5),
    ).toBe(APNS_SERVER_ERROR_RETRY_MS);
  });

  it('treats a whole batch answering BadDeviceToken as our misconfiguration', () => {
    const outcomes = new Map(
      Array.from({ length: MISCONFIGURATION_MIN_BATCH }, (_, i) => [`s${i}`, badToken] as const),
    );
    const settled = settleBatch(outcomes, { round: 0 });
    expect(settled.dead).toEqual([]);
    expect(settled.fatal).toEqual({
      reason: 'provider_configuration:BadDeviceToken',
      fix: expect.stringContaining('CLARION_APNS_URL'),
    });
    expect(settled.failed.every((failure) => failure.reason === 'provider_configuration:BadDeviceToken')).toBe(true);
  });
});

describe('guardAgainstMisconfiguration', () => {
  const batch = (size: number, outcome: (i: number) => DeliveryOutcome) =>
    new Map(Array.from({ length: size }, (_, i) => [`s${i}`, outcome(i)] as const));
  it.each<[string, Map<string, DeliveryOutcome>, string | null]>([
    ['too small a batch', batch(MISCONFIGURATION_MIN_BATCH - 1, () => badToken), null],
    [
      'all DeviceTokenNotForTopic',
      batch(12, () => ({ kind: 'token_dead', reason: 'token_invalid', providerReason: 'DeviceTokenNotForTopic' })),
      'provider_configuration:DeviceTokenNotForTopic',
    ],
    [
      'all SENDER_ID_MISMATCH',
      batch(12, () => ({ kind: 'token_dead', reason: 'token_invalid', providerReason: 'SENDER_ID_MISMATCH' })),
      'provider_configuration:SENDER_ID_MISMATCH',
    ],
    [
      'all Web Push 403 (VAPID refused)',
      batch(12, () => ({ kind: 'rejected', reason: 'web-push:403:BadJwtToken' })),
      'provider_configuration:web-push:403:BadJwtToken',
    ],
    [
      'all Web Push 400 (our request)',
      batch(12, () => ({ kind: 'rejected', reason: 'web-push:400:errno112' })),
      'provider_configuration:web-push:400:errno112',
    ],
    [
      'all Web Push 413 is one message, not our configuration',
      batch(12, () => ({ kind: 'rejected', reason: 'web-push:413' })),
      null,
    ],
    [
      'all Web Push 410 is the browsers, not us',
      batch(12, () => ({ kind: 'token_dead', reason: 'token_unregistered', providerReason: 'web-push:410' })),
      null,
    ],
    ['all Unregistered is the devices, not us', batch(12, () => unregistered()), null],
    ['one token delivered', batch(12, (i) => (i === 0 ? delivered : badToken)), null],
  ])('%s', (_name, outcomes, reason) => {
    expect(guardAgainstMisconfiguration(outcomes)?.reason ?? null).toBe(reason);
  });
});

describe('the misconfiguration guard per Web Push origin', () => {
  const apple = 'https://web.push.apple.com';
  const mozilla = 'https://updates.push.services.mozilla.com';
  const badJwt: DeliveryOutcome = { kind: 'rejected', reason: 'web-push:403:BadJwtToken' };
  const keyMismatch: DeliveryOutcome = { kind: 'rejected', reason: 'web-push:403:errno109' };
  /** `n` subscribers at `origin`, each answering `outcome(i)`: ids `<origin tag><i>`. */
  const at = (tag: string, n: number, outcome: (i: number) => DeliveryOutcome) =>
    Array.from({ length: n }, (_, i) => [`${tag}${i}`, outcome(i)] as const);
  const originOf = (id: string) => (id.startsWith('apple') ? apple : id.startsWith('moz') ? mozilla : null);

  it('an origin refusing every push is our configuration there, and only there: its pushes fail, nobody is unsubscribed', () => {
    const outcomes = new Map([...at('apple', 12, () => badJwt), ...at('moz', 3, () => delivered)]);
    const settled = settleBatch(outcomes, { round: 0, originOf });
    expect(settled.fatal).toBeNull();
    expect(settled.misconfiguredOrigins).toEqual([
      {
        origin: apple,
        reason: 'provider_configuration:web-push:403:BadJwtToken',
        fix: expect.stringContaining(`the push service at ${apple} refused the VAPID signature`),
      },
    ]);
    expect(settled.delivered).toHaveLength(3);
    expect(settled.failed).toEqual(
      at('apple', 12, () => badJwt).map(([id]) => ({ id, reason: 'provider_configuration:web-push:403:BadJwtToken' })),
    );
    expect(settled.dead).toEqual([]);
  });

  it('5 delivered and 20 refused at the same origin: the 20 fail with their own reason, nobody is unsubscribed', () => {
    const outcomes = new Map(at('moz', 25, (i) => (i < 5 ? delivered : keyMismatch)));
    const settled = settleBatch(outcomes, { round: 0, originOf });
    expect(settled).toMatchObject({ fatal: null, misconfiguredOrigins: [], dead: [] });
    expect(settled.delivered).toHaveLength(5);
    expect(new Set(settled.failed.map((failure) => failure.reason))).toEqual(new Set(['web-push:403:errno109']));
  });

  it('judges each origin by its own count: 9 at one origin is too few, whatever the other origins answer', () => {
    const outcomes = new Map([...at('apple', 9, () => badJwt), ...at('moz', 9, () => badJwt)]);
    expect(settleBatch(outcomes, { round: 0, originOf }).misconfiguredOrigins).toEqual([]);
  });

  it('reads no origin for a batch with too few refusals to judge', () => {
    const outcomes = new Map(at('moz', 100, (i) => (i < 9 ? keyMismatch : delivered)));
    let read = 0;
    settleBatch(outcomes, { round: 0, originOf: (id) => ((read += 1), originOf(id)) });
    expect(read).toBe(0);
  });

  it('a fatal outcome still fails the whole batch', () => {
    const outcomes = new Map([...at('apple', 12, () => badJwt), ['x', fatal] as const]);
    const settled = settleBatch(outcomes, { round: 0, originOf });
    expect(settled.fatal).toEqual({ reason: 'apns:InvalidProviderToken', fix: 'check the key' });
    expect(settled.misconfiguredOrigins).toEqual([]);
  });
});
