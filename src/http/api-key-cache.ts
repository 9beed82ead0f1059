import type { Clock } from '../domain/clock.ts';
import { hashApiKey } from '../domain/api-key-secret.ts';
import type { ApiKeyRow } from '../store/api-keys-queries.ts';

/** How long a looked-up key is served from memory; its standing is re-read in the request's own transaction anyway. */
export const API_KEY_CACHE_MS = 30_000;
/** At most this many keys are remembered (about 1 KB each): the least recently used one goes first. */
export const API_KEY_CACHE_SIZE = 10_000;

/**
 * Recently used API keys by the SHA-256 of their value (the value itself is never kept), so a route whose handler
 * re-reads the key's standing inside its own transaction (admission: sending a notification, starting a Live
 * Activity; src/http/admission.ts) skips the lookup before it. Measured on POST /notifications (docs/performance.md, "Accept path"): the
 * lookup was one of 11 statements per request. Revocation stays immediate across processes because the cached row is
 * never trusted alone: the transaction's first statement reads revoked_at and expires_at as committed
 * (src/store/send-context-queries.ts), and an error answered before that statement confirms the key first
 * (src/http/error-handler.ts). What a key cannot change — its account, kind and channel scope — is what the cache
 * serves.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { row: ApiKeyRow; cachedAt: number }>();

  constructor(private readonly clock: Clock) {}

  get(value: string): ApiKeyRow | undefined {
    const hash = hashApiKey(value);
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    this.entries.delete(hash);
    if (this.clock.now() - entry.cachedAt >= API_KEY_CACHE_MS) return undefined;
    this.entries.set(hash, entry);
    return entry.row;
  }

  set(row: ApiKeyRow): void {
    this.entries.delete(row.key_hash);
    this.entries.set(row.key_hash, { row, cachedAt: this.clock.now() });
    if (this.entries.size > API_KEY_CACHE_SIZE) this.entries.delete(this.entries.keys().next().value!);
  }
}
