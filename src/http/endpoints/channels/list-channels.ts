import Type from 'typebox';
import { isId } from '../../../domain/ids.ts';
import { countActiveSubscribers, listChannels } from '../../../store/channels-store.ts';
import { validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { PAGE_LIMIT_DEFAULT } from '../../../domain/limits.ts';
import { errorResponses, PageQuery, SuccessList } from '../../schemas.ts';
import { channelView, ChannelSchema } from './channel-view.ts';

export function listChannelsHandler(deps: AppDependencies): Endpoint {
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
      const { cursor } = request.query;
      const limit = request.query.limit ?? PAGE_LIMIT_DEFAULT;
      if (cursor !== undefined && !isId('channel', cursor)) {
        throw validationFailed([{ field: 'cursor', message: 'must be the nextCursor of a previous page' }]);
      }
      const rows = await listChannels(deps.store.db, { accountId: auth.accountId, codes: auth.channels, after: cursor ?? null, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const counts = await countActiveSubscribers(deps.store.db, page.map((channel) => channel.id));
      return {
        success: true as const,
        data: page.map((channel) => channelView(channel, counts.get(channel.id))),
        nextCursor: rows.length > limit ? page[page.length - 1]!.id : null,
      };
    },
  );
}
