import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks v1 signing (docs/protocols.md section 5): the secret is `whsec_` + base64 of random bytes;
 * receivers strip the prefix and base64-decode the rest to get the HMAC key. The signature covers
 * `"{webhook-id}.{webhook-timestamp}.{body}"` exactly as sent, and `webhook-signature` is a space-separated list
 * of `v1,<base64>` — one per secret, which is how an old and a new secret both verify during a rotation.
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** 32 random bytes: inside the spec's 24–64, and the HMAC-SHA256 block's natural key size. */
const SECRET_BYTES = 32;

export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The HMAC key of a `whsec_…` secret (the prefix is optional, as in the official libraries). */
export function webhookSigningKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

export interface SignatureInput {
  messageId: string;
  /** Unix seconds of this attempt: the value of `webhook-timestamp`. */
  timestampSeconds: number;
  /** The exact body bytes sent. */
  body: string;
}

/** One `v1,<base64>` signature. */
export function signWebhook(secret: string, input: SignatureInput): string {
  const signed = `${input.messageId}.${input.timestampSeconds}.${input.body}`;
  return `v1,${createHmac('sha256', webhookSigningKey(secret)).update(signed, 'utf8').digest('base64')}`;
}

/** The `webhook-signature` header: the current secret's signature first, then those of secrets still in their grace period. */
export function signatureHeader(secrets: readonly string[], input: SignatureInput): string {
  return secrets.map((secret) => signWebhook(secret, input)).join(' ');
}

/** The three Standard Webhooks headers plus the content type, for one attempt. */
export function webhookHeaders(secrets: readonly string[], input: SignatureInput): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': input.messageId,
    'webhook-timestamp': String(input.timestampSeconds),
    'webhook-signature': signatureHeader(secrets, input),
  };
}
