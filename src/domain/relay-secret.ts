import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A relay's signing secret (docs/live-activities.md, "Relays"): 24 random bytes as 32 base64url characters behind
 * `clr_rs_`, shown once when the relay is created. The sender keeps it and signs each webhook with it; Clarion keeps it
 * sealed (the relays table) because checking an HMAC needs the secret itself.
 */
const PREFIX = 'clr_rs_';
const RANDOM_BYTES = 24;

export function generateRelaySecret(): string {
  return PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
}

/**
 * Whether `header` is GitHub's `X-Hub-Signature-256` of `body` under `secret`: "sha256=" and the hex HMAC-SHA256 of
 * the exact bytes received, keyed with the secret as UTF-8
 * (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries). Compared in constant time.
 */
export function isGithubSignature(secret: string, body: string, header: string | undefined): boolean {
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(body, 'utf8').digest();
  return timingSafeEqual(expected, Buffer.from(match[1]!, 'hex'));
}
