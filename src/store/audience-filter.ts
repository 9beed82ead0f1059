import { sql, type SelectQueryBuilder } from 'kysely';
import type { Audience } from '../domain/audience.ts';
import type { Database } from './schema.ts';

/**
 * Narrows a query over `subscribers` to a send's audience (src/domain/audience.ts), the one rule shared by the
 * recipient count at acceptance and every page of the dispatch, so `recipientCount` and what is sent agree. A null
 * audience (the whole channel) adds nothing, so untargeted sends run exactly the queries they always did.
 * External and subscriber ids are bound parameters: at most 10,000 (domain/subscriber-tags.ts), under SQLite's 32,766.
 */
export function withAudience<O>(
  query: SelectQueryBuilder<Database, 'subscribers', O>,
  audience: Audience | null,
): SelectQueryBuilder<Database, 'subscribers', O> {
  if (audience === null) return query;
  if ('externalIds' in audience)
    return audience.externalIds.length === 0
      ? query.where(sql<boolean>`1 = 0`)
      : query.where('subscribers.external_id', 'in', audience.externalIds);
  if ('subscriberIds' in audience)
    return audience.subscriberIds.length === 0
      ? query.where(sql<boolean>`1 = 0`)
      : query.where('subscribers.id', 'in', audience.subscriberIds);
  let narrowed = query;
  for (const tag of audience.tags.all ?? []) {
    narrowed = narrowed.where((eb) =>
      eb.exists(
        eb
          .selectFrom('subscriber_tags')
          .select('subscriber_tags.tag')
          .whereRef('subscriber_tags.subscriber_id', '=', 'subscribers.id')
          .where('subscriber_tags.tag', '=', tag),
      ),
    );
  }
  const any = audience.tags.any ?? [];
  if (any.length > 0) {
    narrowed = narrowed.where((eb) =>
      eb.exists(
        eb
          .selectFrom('subscriber_tags')
          .select('subscriber_tags.tag')
          .whereRef('subscriber_tags.subscriber_id', '=', 'subscribers.id')
          .where('subscriber_tags.tag', 'in', any),
      ),
    );
  }
  return narrowed;
}
