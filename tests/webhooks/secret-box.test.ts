import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openSecret, SecretBoxError, sealSecret } from '../../src/domain/secret-box.ts';

const key = randomBytes(32);

describe('secret box (AES-256-GCM, versioned)', () => {
  it.each([
    ['a webhook secret', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['the empty string', ''],
    ['Unicode', 'schlüssel 🔑 مفتاح'],
    ['64 KiB', 'x'.repeat(64 * 1024)],
  ])('seals and opens %s', (_name, plaintext) => {
    const sealed = sealSecret(key, plaintext, 'whk_1');
    expect(sealed).toMatch(/^v1:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(plaintext || '\u0000');
    expect(openSecret(key, sealed, 'whk_1')).toBe(plaintext);
  });

  it('uses a fresh IV every time: the same secret seals differently', () => {
    expect(sealSecret(key, 'same', 'ctx')).not.toBe(sealSecret(key, 'same', 'ctx'));
  });

  const sealed = sealSecret(key, 'whsec_abc', 'whk_1');
  const flipped = (text: string, index: number) => {
    const raw = Buffer.from(text.slice(3), 'base64url');
    raw[index] = raw[index]! ^ 1;
    return `v1:${raw.toString('base64url')}`;
  };
  it.each([
    ['another key', () => openSecret(randomBytes(32), sealed, 'whk_1'), /does not open with this key/],
    [
      'another context (the value copied to another row)',
      () => openSecret(key, sealed, 'whk_2'),
      /does not open with this key/,
    ],
    ['a changed IV', () => openSecret(key, flipped(sealed, 0), 'whk_1'), /does not open/],
    ['a changed tag', () => openSecret(key, flipped(sealed, 12), 'whk_1'), /does not open/],
    ['a changed ciphertext', () => openSecret(key, flipped(sealed, 28), 'whk_1'), /does not open/],
    ['a truncated value', () => openSecret(key, sealed.slice(0, 20), 'whk_1'), /truncated/],
    [
      'an unknown version',
      () => openSecret(key, sealed.replace(/^v1:/, 'v9:'), 'whk_1'),
      /unknown sealed-secret format "v9"/,
    ],
    ['plain text', () => openSecret(key, 'whsec_abc', 'whk_1'), /unknown sealed-secret format/],
    ['a short key', () => sealSecret(randomBytes(16), 'x'), /must be 32 bytes \(got 16\)/],
  ])('refuses %s', (_name, run, message) => {
    expect(run).toThrow(SecretBoxError);
    expect(run).toThrow(message);
  });
});
