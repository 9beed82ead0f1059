import Type, { type Static } from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import type { Relay } from '../../../store/relays-queries.ts';
import { IdParams, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../schemas.ts';

/** Senders whose webhooks a relay takes (docs/live-activities.md, "Relays"). */
export const relaySenders = ['github-actions'] as const;

/** Path parameter of the /relays/{id} routes. */
export const RelayIdParams = IdParams('relay');

export const RelaySchema = Type.Object(
  {
    id: Type.String({ description: 'rly_… identifier.' }),
    sender: StringEnum(relaySenders, { description: 'Whose webhooks the relay takes.' }),
    channelCode: Type.String({ description: 'The channel its Live Activities go to.' }),
    name: Nullable(Type.String()),
    url: Type.String({ description: 'The payload URL to give the sender.' }),
    createdAt: Timestamp,
    lastUsedAt: NullableTimestamp,
  },
  { title: 'Relay' },
);

export const RelayWithSecretSchema = Type.Object(
  {
    ...RelaySchema.properties,
    secret: Type.String({ description: 'The `clr_rs_` signing secret: shown only here, once.' }),
  },
  { title: 'RelayWithSecret' },
);

/** The URL a sender posts to: the relay's route with the relay's id (the secret never goes in a URL). */
export function relayUrl(baseUrl: string, relay: Pick<Relay, 'id' | 'sender'>): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/v1/relays/${relay.sender}?relay=${relay.id}`;
}

export function relayView(relay: Relay, baseUrl: string): Static<typeof RelaySchema> {
  return {
    id: relay.id,
    sender: relay.sender as (typeof relaySenders)[number],
    channelCode: relay.channel_code,
    name: relay.name,
    url: relayUrl(baseUrl, relay),
    createdAt: toIso(relay.created_at),
    lastUsedAt: relay.last_used_at === null ? null : toIso(relay.last_used_at),
  };
}
