import Type, { type Static } from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import { channelScopeOf, isApiKeyActive, type ApiKeyRow } from '../../../store/api-keys-queries.ts';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../schemas.ts';

const apiKeyProperties = {
  id: Type.String({ description: 'key_… identifier.' }),
  name: Type.String(),
  kind: StringEnum(['secret', 'publishable'] as const),
  start: Type.String({ description: 'The visible start of the value, e.g. clr_sk_Ab3x, to tell keys apart.' }),
  channels: Nullable(
    Type.Array(Type.String(), { description: 'Channel codes the key is limited to; null = every channel.' }),
  ),
  status: StringEnum(['active', 'revoked', 'expired'] as const),
  createdAt: Timestamp,
  lastUsedAt: Nullable(Type.String({ format: 'date-time', description: 'Last request with the key, to the minute.' })),
  revokedAt: NullableTimestamp,
  expiresAt: Nullable(
    Type.String({ format: 'date-time', description: 'When a rotated key stops working (after its grace period).' }),
  ),
  replacedBy: Nullable(Type.String({ description: 'The key_… that replaced this one on rotation.' })),
};

/** What the API shows of a key: never its hash, and its full value only right after it was created. */
export const ApiKeySchema = Type.Object(apiKeyProperties, { title: 'ApiKey' });

export const CreatedApiKeySchema = Type.Object(
  {
    ...apiKeyProperties,
    key: Type.String({ description: 'The full key. Shown this once: Clarion keeps only its hash.' }),
  },
  { title: 'CreatedApiKey' },
);

export function apiKeyView(row: ApiKeyRow, now: number): Static<typeof ApiKeySchema> {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    start: row.key_start,
    channels: channelScopeOf(row),
    status: row.revoked_at !== null ? 'revoked' : isApiKeyActive(row, now) ? 'active' : 'expired',
    createdAt: toIso(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : toIso(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : toIso(row.revoked_at),
    expiresAt: row.expires_at === null ? null : toIso(row.expires_at),
    replacedBy: row.replaced_by,
  };
}
