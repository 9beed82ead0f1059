import { createHash, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Clock } from '../../domain/clock.ts';

/**
 * The APNs provider token (docs/protocols.md 1.2): an ES256 JWT with header {alg, kid} and claims {iss: team id, iat}.
 *
 * Timing rules, both from Apple:
 * - APNs refuses an `iat` older than 60 minutes with 403 ExpiredProviderToken, so the token must be renewed at least
 *   hourly. We renew after 50 minutes (sideshow/apns2 uses 3000 s too): 10 minutes of slack for clock skew between us
 *   and Apple, and for requests already in flight with the old token.
 * - APNs answers 429 TooManyProviderTokenUpdates when a key's token is refreshed more often than once every 20 minutes,
 *   so no two tokens of a key are ever signed less than 20 minutes apart. The rule is the key's, not a connection's:
 *   every client of a process that signs with one key (production, sandbox, broadcast, each app's, "Test credentials")
 *   takes the same token from the process's ApnsProviderTokens below instead of signing its own.
 *
 * Renewal is lazy (checked on each `current()`), so there is no timer to keep a process alive or to clean up.
 */
export interface ApnsProviderTokenOptions {
  key: KeyObject;
  keyId: string;
  teamId: string;
  clock: Clock;
  /** Age at which `current()` signs a new token. Default 50 minutes. */
  renewAfterMs?: number;
  /** Never sign two tokens closer together than this. Default 20 minutes. */
  minRenewIntervalMs?: number;
}

export const APNS_TOKEN_RENEW_AFTER_MS = 50 * 60_000;
export const APNS_TOKEN_MIN_RENEW_INTERVAL_MS = 20 * 60_000;

export type ExpiredTokenDecision =
  /** A newer token is available (just signed, or already renewed by a concurrent request): retry with it. */
  | { renewed: true; token: string }
  /**
   * Refused: the rejected token is younger than the 20-minute floor. Since APNs only calls a token expired when its
   * `iat` is over 60 minutes old by Apple's clock, a token we signed under 20 minutes ago means our clock is at least
   * 40 minutes behind; a new token would carry the same wrong `iat` and would also cost a TooManyProviderTokenUpdates.
   */
  | { renewed: false; ageMs: number };

export interface ApnsProviderToken {
  /** The bearer token to send now; signs a new one when the current one is 50 minutes old. */
  current(): Promise<string>;
  /**
   * The current token when it needs no signing (the case of every push but one per 50 minutes), else null: lets the
   * client skip an await per push (bench/fanout-cpu.ts).
   */
  fresh(): string | null;
  /**
   * APNs answered 403 ExpiredProviderToken for `rejected`. Decision (documented in ExpiredTokenDecision):
   * - `rejected` is no longer the current token → use the current one (no new signature; many in-flight requests
   *   rejected together cause one renewal, not one each);
   * - it is at least 20 minutes old → renew now, earlier than the 50-minute schedule (Apple's clock runs ahead of
   *   ours by 10–40 minutes; renewing is allowed by the floor and fixes it);
   * - younger → refuse (the clock is badly off; the caller reports a fatal outcome naming the clock).
   */
  renewAfterExpired(rejected: string): Promise<ExpiredTokenDecision>;
  /** When the current token was signed (clock ms), or null before the first one. */
  issuedAt(): number | null;
}

export function createApnsProviderToken(options: ApnsProviderTokenOptions): ApnsProviderToken {
  const renewAfterMs = options.renewAfterMs ?? APNS_TOKEN_RENEW_AFTER_MS;
  const minIntervalMs = options.minRenewIntervalMs ?? APNS_TOKEN_MIN_RENEW_INTERVAL_MS;
  let cached: { token: string; issuedAt: number } | null = null;
  // Concurrent callers share one signing, so a burst of sends at the 50-minute mark signs one token, not hundreds.
  let signing: Promise<{ token: string; issuedAt: number }> | null = null;

  const sign = (): Promise<{ token: string; issuedAt: number }> => {
    signing ??= (async () => {
      try {
        const issuedAt = options.clock.now();
        const token = await new SignJWT({})
          .setProtectedHeader({ alg: 'ES256', kid: options.keyId })
          .setIssuer(options.teamId)
          // Seconds, from the injected clock: jose's setIssuedAt() without an argument would read Date.now().
          .setIssuedAt(Math.floor(issuedAt / 1000))
          .sign(options.key);
        cached = { token, issuedAt };
        return cached;
      } finally {
        signing = null;
      }
    })();
    return signing;
  };

  return {
    async current() {
      if (signing) return (await signing).token;
      if (cached && options.clock.now() - cached.issuedAt < renewAfterMs) return cached.token;
      return (await sign()).token;
    },
    fresh() {
      return !signing && cached && options.clock.now() - cached.issuedAt < renewAfterMs ? cached.token : null;
    },
    async renewAfterExpired(rejected) {
      if (signing) return { renewed: true, token: (await signing).token };
      if (!cached) return { renewed: true, token: (await sign()).token };
      if (cached.token !== rejected) return { renewed: true, token: cached.token };
      const ageMs = options.clock.now() - cached.issuedAt;
      if (ageMs < minIntervalMs) return { renewed: false, ageMs };
      return { renewed: true, token: (await sign()).token };
    },
    issuedAt: () => cached?.issuedAt ?? null,
  };
}

/**
 * The provider tokens of one process, one per key (team, key id and key bytes): the clients of a key share its token,
 * so it is renewed once per 50 minutes whatever the number of clients, connections or hosts using it. A worker thread
 * (CLARION_WORKER_THREAD) is a process of its own here: it has its own, so its key is renewed on its own schedule.
 */
export interface ApnsProviderTokens {
  forKey(input: { key: KeyObject; keyId: string; teamId: string }): ApnsProviderToken;
}

export function createApnsProviderTokens(clock: Clock): ApnsProviderTokens {
  const tokens = new Map<string, ApnsProviderToken>();
  return {
    forKey({ key, keyId, teamId }) {
      // The key's bytes too: a replaced key under the same id (a new upload) must not reuse the old key's token.
      const fingerprint = createHash('sha256')
        .update(key.export({ format: 'der', type: 'pkcs8' }))
        .digest('base64url');
      const id = `${teamId}:${keyId}:${fingerprint}`;
      let token = tokens.get(id);
      if (!token) {
        token = createApnsProviderToken({ key, keyId, teamId, clock });
        tokens.set(id, token);
      }
      return token;
    },
  };
}
