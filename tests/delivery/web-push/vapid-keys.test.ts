import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/load-config.ts';
import { openSecret } from '../../../src/domain/secret-box.ts';
import {
  generateVapidKeyPair,
  resolveVapidKeys,
  resolveVapidPublicKey,
  rotateVapidKeys,
} from '../../../src/delivery/web-push/vapid-keys.ts';
import { vapidSubject } from '../../../src/delivery/web-push/vapid-subject.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

// Its own database: the test rotates the instance's one pair.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({}, { isolatedDatabase: true });
});
afterAll(async () => t.close());

const unset = {
  vapidPublicKey: undefined,
  vapidPrivateKey: undefined,
  vapidSubject: undefined,
  baseUrl: 'https://push.example.com',
};

describe('VAPID keys', () => {
  it('generates a pair on first use, then keeps it, also when several processes race for the first one', async () => {
    const racing = await Promise.all(
      [1, 2, 3].map(() => resolveVapidKeys(t.store.db, t.secretKey, unset, t.clock.now())),
    );
    expect(new Set(racing.map((keys) => keys.publicKey)).size).toBe(1);
    const later = await resolveVapidKeys(t.store.db, t.secretKey, unset, t.clock.now());
    expect(later).toMatchObject({
      publicKey: racing[0]!.publicKey,
      privateKey: racing[0]!.privateKey,
      source: 'database',
      subject: 'https://push.example.com',
    });
  });

  it('stores the private key sealed with the instance secret key, which alone opens it', async () => {
    const keys = await resolveVapidKeys(t.store.db, t.secretKey, unset, t.clock.now());
    const row = await t.store.db.selectFrom('vapid_keys').selectAll().executeTakeFirstOrThrow();
    expect(row.public_key).toBe(keys.publicKey);
    expect(row.sealed_private_key).toMatch(/^v1:/);
    expect(openSecret(t.secretKey, row.sealed_private_key, 'vapid_keys')).toBe(keys.privateKey);
    expect(Buffer.from(keys.privateKey, 'base64url').length).toBe(32);
    await expect(resolveVapidKeys(t.store.db, Buffer.alloc(32, 7), unset, t.clock.now())).rejects.toThrow(
      /CLARION_SECRET_KEY/,
    );
    // The public key is read without opening the private one.
    expect(await resolveVapidPublicKey(t.store.db, Buffer.alloc(32, 7), unset, t.clock.now())).toBe(keys.publicKey);
  });

  it('rotation replaces the stored pair', async () => {
    const before = await resolveVapidKeys(t.store.db, t.secretKey, unset, t.clock.now());
    const rotated = await rotateVapidKeys(t.store.db, t.secretKey, t.clock.now());
    const after = await resolveVapidKeys(t.store.db, t.secretKey, unset, t.clock.now());
    expect(rotated).not.toBe(before.publicKey);
    expect(after.publicKey).toBe(rotated);
    expect(after.privateKey).not.toBe(before.privateKey);
  });

  it('generates private keys of 32 bytes, also the one in 256 whose first byte is zero', () => {
    const lengths = new Set(
      Array.from({ length: 2000 }, () => Buffer.from(generateVapidKeyPair().privateKey, 'base64url').length),
    );
    expect([...lengths]).toEqual([32]);
  });

  it('takes a configured pair, and refuses half a pair or a mismatched one', async () => {
    const pair = generateVapidKeyPair();
    const other = generateVapidKeyPair();
    const configured = await resolveVapidKeys(
      t.store.db,
      t.secretKey,
      { ...unset, vapidPublicKey: pair.publicKey, vapidPrivateKey: pair.privateKey },
      t.clock.now(),
    );
    expect(configured).toMatchObject({ ...pair, source: 'config' });
    await expect(
      resolveVapidKeys(t.store.db, t.secretKey, { ...unset, vapidPublicKey: pair.publicKey }, 0),
    ).rejects.toThrow(ConfigError);
    await expect(
      resolveVapidKeys(
        t.store.db,
        t.secretKey,
        { ...unset, vapidPublicKey: other.publicKey, vapidPrivateKey: pair.privateKey },
        0,
      ),
    ).rejects.toThrow(/CLARION_VAPID_PUBLIC_KEY: does not belong to CLARION_VAPID_PRIVATE_KEY/);
    await expect(
      resolveVapidKeys(
        t.store.db,
        t.secretKey,
        { ...unset, vapidPublicKey: pair.publicKey, vapidPrivateKey: 'c2hvcnQ' },
        0,
      ),
    ).rejects.toThrow(/must be 32 bytes/);
  });

  it.each([
    [{ vapidSubject: 'mailto:ops@example.com', baseUrl: 'http://localhost:3000' }, 'mailto:ops@example.com'],
    [{ vapidSubject: 'https://example.com/contact', baseUrl: 'http://localhost:3000' }, 'https://example.com/contact'],
    [{ vapidSubject: undefined, baseUrl: 'https://push.example.com' }, 'https://push.example.com'],
    [{ vapidSubject: undefined, baseUrl: 'http://clarion.internal:3000' }, 'mailto:webpush@clarion.internal'],
  ])('subject %o → %s', (config, subject) => {
    expect(vapidSubject(config)).toBe(subject);
  });

  it('refuses a subject that is neither mailto: nor https:', () => {
    expect(() => vapidSubject({ vapidSubject: 'http://example.com', baseUrl: 'http://localhost:3000' })).toThrow(
      /CLARION_VAPID_SUBJECT: must be a mailto: or https: URL/,
    );
  });

  it.each([
    [
      'a space and angle brackets',
      'mailto: <admin@example.com>',
      /CLARION_VAPID_SUBJECT: .*no spaces or angle brackets.*\(got "mailto: <admin@example.com>"\)$/,
    ],
    ['angle brackets alone', 'mailto:<admin@example.com>', /no spaces or angle brackets/],
    ['a trailing space', 'mailto:admin@example.com ', /no spaces or angle brackets/],
    ['a localhost mailto', 'mailto:webpush@localhost', /CLARION_VAPID_SUBJECT: .*localhost/],
    ['a localhost https URL', 'https://localhost:3000/contact', /CLARION_VAPID_SUBJECT: .*localhost/],
    ['a loopback address', 'mailto:ops@127.0.0.1', /CLARION_VAPID_SUBJECT: .*localhost/],
    ['a *.localhost name', 'https://clarion.localhost', /CLARION_VAPID_SUBJECT: .*localhost/],
  ])('refuses a CLARION_VAPID_SUBJECT with %s, in one line naming the variable', (_what, subject, message) => {
    let error: unknown;
    try {
      vapidSubject({ vapidSubject: subject, baseUrl: 'https://push.example.com' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('derives a localhost subject from a localhost base URL without refusing it (the start warns instead)', () => {
    expect(vapidSubject({ vapidSubject: undefined, baseUrl: 'http://localhost:3000' })).toBe(
      'mailto:webpush@localhost',
    );
    expect(vapidSubject({ vapidSubject: undefined, baseUrl: 'https://localhost:8443' })).toBe('https://localhost:8443');
  });
});
