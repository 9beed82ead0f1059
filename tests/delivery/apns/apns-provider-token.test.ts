import { createPrivateKey } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { createApnsProviderToken } from '../../../src/delivery/apns/apns-provider-token.ts';
import { ManualClock } from '../../../src/domain/clock.ts';
import { createApnsSigningKey } from '../../../tools/fakes/index.ts';

const MINUTE = 60_000;
const signingKey = createApnsSigningKey({ keyId: 'ABC123DEFG', teamId: 'DEF123GHIJ' });

function setup() {
  const clock = new ManualClock();
  const tokens = createApnsProviderToken({
    key: createPrivateKey(signingKey.privateKeyPem),
    keyId: signingKey.keyId,
    teamId: signingKey.teamId,
    clock,
  });
  return { clock, tokens };
}

describe('APNs provider token', () => {
  it('is an ES256 JWT with kid, iss = team id and iat in seconds from the injected clock', async () => {
    const { clock, tokens } = setup();
    const jwt = await tokens.current();
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'ES256', kid: 'ABC123DEFG' });
    const { payload } = await jwtVerify(jwt, signingKey.publicKey, {
      algorithms: ['ES256'],
      currentDate: new Date(clock.now()),
    });
    expect(payload).toEqual({ iss: 'DEF123GHIJ', iat: clock.now() / 1000 });
    // A raw 64-byte R‖S signature, not DER (docs/protocols.md 1.2).
    expect(Buffer.from(jwt.split('.')[2] ?? '', 'base64url')).toHaveLength(64);
  });

  it('is reused for 50 minutes and renewed after', async () => {
    const { clock, tokens } = setup();
    const first = await tokens.current();
    clock.advance(50 * MINUTE - 1);
    expect(await tokens.current()).toBe(first);
    clock.advance(1);
    const second = await tokens.current();
    expect(second).not.toBe(first);
    expect(tokens.issuedAt()).toBe(clock.now());
  });

  it('offers the current token without waiting only while it needs no signing', async () => {
    const { clock, tokens } = setup();
    expect(tokens.fresh()).toBeNull();
    const first = await tokens.current();
    expect(tokens.fresh()).toBe(first);
    clock.advance(50 * MINUTE - 1);
    expect(tokens.fresh()).toBe(first);
    clock.advance(1);
    expect(tokens.fresh()).toBeNull();
    const second = await tokens.current();
    expect(tokens.fresh()).toBe(second);
  });

  it('signs once for many concurrent callers', async () => {
    const { tokens } = setup();
    const all = await Promise.all(Array.from({ length: 50 }, () => tokens.current()));
    expect(new Set(all).size).toBe(1);
  });

  describe('after 403 ExpiredProviderToken', () => {
    it('renews a token at least 20 minutes old, earlier than the 50-minute schedule', async () => {
      const { clock, tokens } = setup();
      const first = await tokens.current();
      clock.advance(20 * MINUTE);
      const decision = await tokens.renewAfterExpired(first);
      expect(decision).toMatchObject({ renewed: true });
      expect(decision.renewed && decision.token).not.toBe(first);
      expect(await tokens.current()).toBe(decision.renewed ? decision.token : null);
    });

    it('refuses to renew a token younger than 20 minutes (clock skew; TooManyProviderTokenUpdates otherwise)', async () => {
      const { clock, tokens } = setup();
      const first = await tokens.current();
      clock.advance(19 * MINUTE);
      expect(await tokens.renewAfterExpired(first)).toEqual({ renewed: false, ageMs: 19 * MINUTE });
      expect(await tokens.current()).toBe(first);
    });

    it('hands out the already renewed token when a stale one is reported, without signing again', async () => {
      const { clock, tokens } = setup();
      const first = await tokens.current();
      clock.advance(25 * MINUTE);
      const results = await Promise.all(Array.from({ length: 20 }, () => tokens.renewAfterExpired(first)));
      const renewed = new Set(results.map((result) => (result.renewed ? result.token : null)));
      expect(renewed.size).toBe(1);
      expect(renewed.has(first)).toBe(false);
      const issuedAt = tokens.issuedAt();
      clock.advance(MINUTE);
      expect(await tokens.renewAfterExpired(first)).toMatchObject({ renewed: true });
      expect(tokens.issuedAt()).toBe(issuedAt);
    });
  });
});
