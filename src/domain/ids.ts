import { randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';

/**
 * Every id prefix Clarion issues (docs/design.md 2.3), in one table so a prefix is never reused for another resource.
 * The part after the prefix is a ULID in lower case: 48 bits of millisecond time then 80 random bits, so ids sort
 * by creation time and cursor pagination can page by id.
 */
export const idPrefixes = {
  account: 'acc',
  user: 'usr',
  channel: 'chn',
  apiKey: 'key',
  subscriber: 'sub',
  notification: 'ntf',
  liveActivity: 'lva',
  webhook: 'whk',
  webhookMessage: 'msg',
  request: 'req',
  event: 'evt',
  job: 'job',
  session: 'ses',
  app: 'app',
  relay: 'rly',
  widgetReload: 'wrl',
} as const;

export type IdKind = keyof typeof idPrefixes;

/**
 * ulid's own generator asks the system for one random byte per character, 16 calls per id; a request that accepts a
 * notification makes three ids, and those calls were 3 % of its CPU (docs/performance.md, "Accept path"). The same
 * cryptographic bytes, fetched 4 KiB at a time. A byte / 256 picks one of 32 characters with equal odds.
 */
const randomPool = Buffer.alloc(4096);
let randomOffset = randomPool.length;
function pooledRandom(): number {
  if (randomOffset === randomPool.length) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  return randomPool[randomOffset++]! / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

/**
 * The smallest id of `kind` made at `time`: every id made before it sorts below it, every id made at or after it
 * does not (a ULID starts with its time), so "made before `time`" is a range of the primary key.
 */
export function firstIdAt(kind: IdKind, time: number): string {
  return `${idPrefixes[kind]}_${encodeTime(time, 10).toLowerCase()}${'0'.repeat(16)}`;
}

export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${idPrefixes[kind]}_${nextUlid(now).toLowerCase()}`;
}

const ID_BODY = /^[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `value` has the shape of an id of this kind; used to answer 404 early for malformed ids. */
export function isId(kind: IdKind, value: string): boolean {
  const prefix = `${idPrefixes[kind]}_`;
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}
