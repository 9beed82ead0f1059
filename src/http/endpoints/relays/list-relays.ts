import Type from 'typebox';
import { listRelays } from '../../../store/relays-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { assertRelayManager } from './relay-access.ts';
import { RelaySchema, relayView } from './relay-view.ts';

/** GET /api/v1/relays: every relay of the account (at most MAX_RELAYS_PER_ACCOUNT, so one page), without secrets. */
export function listRelaysEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'List relays',
        tags: ['relays'],
        response: { 200: Success(Type.Array(RelaySchema)), ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      assertRelayManager(auth);
      const relays = await listRelays(deps.store.db, auth.accountId);
      return { success: true as const, data: relays.map((relay) => relayView(relay, deps.config.baseUrl)) };
    },
  );
}
