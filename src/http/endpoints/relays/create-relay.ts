import Type from 'typebox';
import { newId } from '../../../domain/ids.ts';
import { generateRelaySecret } from '../../../domain/relay-secret.ts';
import { sealSecret } from '../../../domain/secret-box.ts';
import { countRelays, insertRelay, MAX_RELAYS_PER_ACCOUNT } from '../../../store/relays-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { channelInScope } from '../../channel-scope.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { ChannelCode, errorResponses, StringEnum, Success } from '../../schemas.ts';
import { assertRelayManager } from './relay-access.ts';
import { relaySenders, relayView, RelayWithSecretSchema } from './relay-view.ts';

/** POST /api/v1/relays: a relay of one channel for a sender that signs its webhooks; its secret is shown once. */
export function createRelayEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Create a relay: where a sender that signs its webhooks (GitHub) drives Live Activities',
        description:
          'Answers with the payload `url` to give the sender and the `clr_rs_` `secret` it signs with, shown only here. docs/live-activities.md, "Relays".',
        tags: ['relays'],
        body: Type.Object(
          {
            sender: StringEnum(relaySenders, { description: 'Whose webhooks the relay takes.' }),
            channelCode: ChannelCode,
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Your label for it.' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Success(RelayWithSecretSchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      assertRelayManager(auth);
      const { sender, channelCode, name } = request.body;
      const { db } = deps.store;
      const channel = await channelInScope(db, auth, channelCode);
      if ((await countRelays(db, auth.accountId)) >= MAX_RELAYS_PER_ACCOUNT) {
        throw new ApiError('conflict', {
          message: `An account can have at most ${MAX_RELAYS_PER_ACCOUNT} relays; delete one first.`,
          details: { limit: MAX_RELAYS_PER_ACCOUNT },
        });
      }
      const now = deps.clock.now();
      const id = newId('relay', now);
      const secret = generateRelaySecret();
      const row = {
        id,
        account_id: auth.accountId,
        channel_id: channel.id,
        sender,
        name: name ?? null,
        secret: sealSecret(deps.secretKey, secret, id),
        created_at: now,
        last_used_at: null,
      };
      await insertRelay(db, row);
      // The secret must not linger in a browser or proxy cache (nor be kept for an Idempotency-Key replay).
      reply.header('cache-control', 'no-store');
      const view = relayView({ ...row, channel_code: channel.code }, deps.config.baseUrl);
      return reply.code(201).send({ success: true, data: { ...view, secret } });
    },
  );
}
