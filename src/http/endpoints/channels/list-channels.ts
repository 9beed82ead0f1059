import Type from 'typebox';
import { countActiveSubscribers, listChannels } from '../../../store/channels-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { readPageQuery, splitPage } from '../../pagination.ts';
import { errorResponses, PageQuery, SuccessList } from '../../schemas.ts';
import { joinPageBase } from './channel-join-key.ts';
import { channelEngagementSummaries } from './channel-engagement.ts';
import { channelView, ChannelSchema } from './channel-view.ts';

export function listChannelsEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "List the account's channels (only those in a scoped key's scope)",
        tags: ['channels'],
        querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }),
        response: { 200: SuccessList(ChannelSchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const paging = readPageQuery(request.query, 'channel');
      const rows = await listChannels(deps.store.db, {
        accountId: auth.accountId,
        codes: auth.channels,
        after: paging.cursor,
        limit: paging.fetch,
      });
      const { page, nextCursor } = splitPage(rows, paging, (row) => row.id);
      const counts = await countActiveSubscribers(
        deps.store.db,
        page.map((channel) => channel.id),
      );
      const engagement = await channelEngagementSummaries(
        deps.store.db,
        page.map((channel) => channel.id),
        deps.clock.now(),
      );
      const join = await joinPageBase(deps, auth.accountId);
      return {
        success: true as const,
        data: page.map((channel) => channelView(channel, counts.get(channel.id), join, engagement.get(channel.id))),
        nextCursor,
      };
    },
  );
}
