import Type from 'typebox';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { channelInScope } from '../../channel-scope.ts';
import { ChannelCode, errorResponses, Success } from '../../schemas.ts';
import { ChannelSchema, oneChannelView } from './channel-view.ts';

export function getChannelEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "Get a channel with its subscriber counts per platform and the last 30 days' opens",
        tags: ['channels'],
        params: Type.Object({ code: ChannelCode }),
        response: { 200: Success(ChannelSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const { code } = request.params;
      const channel = await channelInScope(deps.store.db, auth, code);
      return { success: true as const, data: await oneChannelView(deps, auth.accountId, channel) };
    },
  );
}
