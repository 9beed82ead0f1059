import Type from 'typebox';
import { alertStep, AlertmanagerWebhook } from '../../../domain/relays/alertmanager.ts';
import type { AppDependencies } from '../../app-types.ts';
import { channelInScope } from '../../channel-scope.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { ChannelCode, errorResponses, Success } from '../../schemas.ts';
import { RelayResultSchema, runRelaySteps } from './relay-steps.ts';

/**
 * POST /api/v1/relays/alertmanager?channelCode=…: Alertmanager's webhook_config posts here with a secret key in its
 * `http_config.authorization` (a key scoped to the channel is all it needs). Each alert drives a `status` activity
 * keyed by its fingerprint (src/domain/relays/alertmanager.ts): firing starts or updates it, resolved ends it.
 */
export function alertmanagerRelayEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Relay an Alertmanager webhook: a `status` Live Activity per alert',
        description:
          'Alertmanager’s webhook payload (version 4) as it sends it. Each firing alert starts or updates the activity of its fingerprint (state `error` for severity critical, error, page, high, fatal or emergency, else `warning`; the summary annotation as the message); each resolved one ends it as `ok`. An update that changes nothing is not pushed or charged. Each change counts one against the monthly quota. docs/live-activities.md, "Relays".',
        tags: ['relays'],
        querystring: Type.Object({ channelCode: ChannelCode }, { additionalProperties: false }),
        body: AlertmanagerWebhook,
        response: { 200: Success(RelayResultSchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const channel = await channelInScope(deps.store.db, auth, request.query.channelCode);
      const results = await runRelaySteps(deps, auth, reply, channel, request.body.alerts.map(alertStep));
      return reply.code(200).send({ success: true, data: { results } });
    },
  );
}
