import { createHash, randomBytes } from 'node:crypto';

/** Secret keys act on the account's behalf from a server; publishable keys are safe inside an app (docs/design.md 2.2). */
export type ApiKeyKind = 'secret' | 'publishable';

const KIND_PREFIX: Record<ApiKeyKind, string> = { secret: 'clr_sk_', publishable: 'clr_pk_' };
/** 24 random bytes = 192 bits, written as 32 base64url characters. */
const RANDOM_BYTES = 24;
/** Characters of the random part kept in clear so people can tell keys apart ("clr_sk_Ab3x…"). */
const VISIBLE_CHARS = 4;
const KEY_SHAPE = /^clr_(sk|pk)_[A-Za-z0-9_-]{32}$/;

export interface GeneratedApiKey {
  /** The full value: shown once, never stored. */
  value: string;
  /** SHA-256 of the value, hex: what is stored and looked up. */
  hash: string;
  /** The visible start, e.g. "clr_sk_Ab3x". */
  start: string;
}

export function generateApiKey(kind: ApiKeyKind): GeneratedApiKey {
  const value = KIND_PREFIX[kind] + randomBytes(RANDOM_BYTES).toString('base64url');
  return { value, hash: hashApiKey(value), start: value.slice(0, KIND_PREFIX[kind].length + VISIBLE_CHARS) };
}

/**
 * A fast hash is right here (unlike passwords): keys carry 192 random bits, so there is nothing to brute-force,
 * and every API request must look its key up by hash.
 */
export function hashApiKey(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}
