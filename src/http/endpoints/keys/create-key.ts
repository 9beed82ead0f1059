import Type from 'typebox';
import { createApiKey } from '../../../store/api-keys-queries.ts';
import { listChannels } from '../../../store/channels-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { ChannelCode, errorResponses, StringEnum, Success } from '../../schemas.ts';
import { apiKeyView, CreatedApiKeySchema } from './key-view.ts';

const MAX_SCOPE_CHANNELS = 100;

export function createKeyEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Create an API key; its full value is in this response only (dashboard session only)',
        description:
          'A secret key (clr_sk_…) acts for your backend; a publishable key (clr_pk_…) is safe inside an app and may only register and unsubscribe subscribers. `channels` limits the key to those channels (they must exist); left out, the key may use every channel, including later ones. Needs X-CSRF-Token.',
        tags: ['api keys'],
        body: Type.Object(
          {
            name: Type.String({
              minLength: 1,
              maxLength: 100,
              description: 'A name to tell keys apart, e.g. "backend" or "ios-app".',
            }),
            kind: Type.Optional(StringEnum(['secret', 'publishable'] as const, { default: 'secret' })),
            channels: Type.Optional(
              Type.Array(ChannelCode, {
                minItems: 1,
                maxItems: MAX_SCOPE_CHANNELS,
                description: 'Channel codes the key is limited to; leave out for every channel.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: Success(CreatedApiKeySchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const accountId = request.auth!.accountId;
      const name = request.body.name.trim();
      const channels = request.body.channels ? [...new Set(request.body.channels)] : null;
      if (channels) {
        // A scope naming a channel that does not exist is almost certainly a typo, and would silently allow nothing.
        const found = new Set(
          (await listChannels(deps.store.db, { accountId, codes: channels, after: null, limit: channels.length })).map(
            (channel) => channel.code,
          ),
        );
        const missing = channels.find((code) => !found.has(code));
        if (missing !== undefined) throw new ApiError('channel_not_found', { details: { channelCode: missing } });
      }
      const now = deps.clock.now();
      const created = await createApiKey(deps.store.db, {
        accountId,
        name: name || request.body.name,
        kind: request.body.kind ?? 'secret',
        channels,
        now,
      });
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ success: true, data: { ...apiKeyView(created.row, now), key: created.value } });
    },
  );
}
