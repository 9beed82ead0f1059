import Type from 'typebox';
import { ChannelCodeTakenError, createChannel } from '../../../store/channels-store.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { assertChannelInScope } from '../../channel-scope.ts';
import { ChannelCode, errorResponses, Success } from '../../schemas.ts';
import { channelView, ChannelSchema } from './channel-view.ts';

export const ChannelName = Type.String({ minLength: 1, maxLength: 100, description: 'Display name; defaults to the code.' });
export const ChannelDescription = Type.String({ maxLength: 500 });

export function createChannelHandler(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Create a channel',
        tags: ['channels'],
        body: Type.Object(
          { code: ChannelCode, name: Type.Optional(ChannelName), description: Type.Optional(ChannelDescription) },
          { additionalProperties: false },
        ),
        response: { 201: Success(ChannelSchema), ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const { code, name, description } = request.body;
      assertChannelInScope(auth, code);
      try {
        const channel = await createChannel(deps.store.db, {
          accountId: auth.accountId,
          code,
          name: name ?? code,
          description: description ?? null,
          now: deps.clock.now(),
        });
        return reply.code(201).send({ success: true, data: channelView(channel, undefined) });
      } catch (error) {
        if (error instanceof ChannelCodeTakenError) {
          throw new ApiError('conflict', { message: error.message, details: { field: 'code', channelCode: code } });
        }
        throw error;
      }
    },
  );
}
