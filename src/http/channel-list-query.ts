import Type from 'typebox';
import type { Kysely } from 'kysely';
import type { IdKind } from '../domain/ids.ts';
import type { Database } from '../store/schema.ts';
import type { AuthContext } from './app-types.ts';
import { listableChannelIds } from './channel-scope.ts';
import { readPageQuery, type PageRequest } from './pagination.ts';
import { ChannelCode, PageQuery, StringEnum } from './schemas.ts';

/**
 * The query of a list of things sent to channels, newest first (GET /notifications, GET /live-activities): an
 * optional channel, an optional status out of `statuses`, and the page.
 */
export function ChannelListQuery<const S extends readonly string[]>(statuses: S) {
  return Type.Object(
    { channelCode: Type.Optional(ChannelCode), status: Type.Optional(StringEnum(statuses)), ...PageQuery },
    { additionalProperties: false },
  );
}

export interface ChannelListRequest<Status extends string> {
  /** The channels to list from (the filter's one, the key's scope, or null for the whole account). */
  channelIds: string[] | null;
  status: Status | null;
  paging: PageRequest;
}

/** Reads a ChannelListQuery: 400 for a cursor that is not an id of `kind`, 403/404 for the channel filter. */
export async function readChannelListQuery<Status extends string>(
  db: Kysely<Database>,
  auth: AuthContext,
  query: { channelCode?: string; status?: Status; cursor?: string; limit?: number },
  kind: IdKind,
): Promise<ChannelListRequest<Status>> {
  const paging = readPageQuery(query, kind);
  const channelIds = await listableChannelIds(db, auth, query.channelCode);
  return { channelIds, status: query.status ?? null, paging };
}
