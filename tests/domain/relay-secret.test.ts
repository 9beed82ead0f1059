import { describe, expect, it } from 'vitest';
import { generateRelaySecret, isGithubSignature } from '../../src/domain/relay-secret.ts';

describe('isGithubSignature', () => {
  // GitHub's own example (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries,
  // "Testing the webhook payload validation").
  const secret = "It's a Secret to Everybody";
  const body = 'Hello, World!';
  const signature = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

  it('accepts the documented example', () => {
    expect(isGithubSignature(secret, body, signature)).toBe(true);
    expect(isGithubSignature(secret, body, signature.toUpperCase().replace('SHA256=', 'sha256='))).toBe(true);
  });

  it('refuses another body, another secret, the SHA-1 header’s form, a truncated or missing signature', () => {
    expect(isGithubSignature(secret, 'Hello, World?', signature)).toBe(false);
    expect(isGithubSignature(`${secret}!`, body, signature)).toBe(false);
    expect(isGithubSignature(secret, body, 'sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59')).toBe(false);
    expect(isGithubSignature(secret, body, signature.slice(0, -2))).toBe(false);
    expect(isGithubSignature(secret, body, undefined)).toBe(false);
  });
});

describe('generateRelaySecret', () => {
  it('makes a clr_rs_ secret of 32 base64url characters, different each time', () => {
    const secrets = new Set(Array.from({ length: 20 }, generateRelaySecret));
    expect(secrets.size).toBe(20);
    for (const secret of secrets) expect(secret).toMatch(/^clr_rs_[A-Za-z0-9_-]{32}$/);
  });
});
