import { toIso } from '../domain/clock.ts';
import { channelScopeOf, type ApiKeyRow } from '../store/api-keys-queries.ts';

/** How the CLI shows a key: never its hash, and its full value only when it was just created. */
export function apiKeyOutput(row: ApiKeyRow, value?: string) {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    kind: row.kind,
    ...(value === undefined ? {} : { key: value }),
    start: row.key_start,
    channels: channelScopeOf(row),
    createdAt: toIso(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : toIso(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : toIso(row.revoked_at),
    expiresAt: row.expires_at === null ? null : toIso(row.expires_at),
  };
}
