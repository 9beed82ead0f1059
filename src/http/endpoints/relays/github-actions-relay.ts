import Type, { type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { isGithubSignature } from '../../../domain/relay-secret.ts';
import {
  workflowJobStep,
  WorkflowJobEvent,
  workflowRunStep,
  WorkflowRunEvent,
} from '../../../domain/relays/github-actions.ts';
import type { RelayStep } from '../../../domain/relays/relay-step.ts';
import { describeSchemaErrors } from '../../../domain/schema-errors.ts';
import { openSecret } from '../../../domain/secret-box.ts';
import { findRelay, touchRelay } from '../../../store/relays-queries.ts';
import { ApiError, validationFailed } from '../../api-error.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { rawBodyOf } from '../../raw-body.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { RelayResultSchema, runRelaySteps } from './relay-steps.ts';

/** One message for an unknown relay and a wrong signature, so a caller learns nothing about which relays exist. */
const BAD_SIGNATURE =
  'The relay is unknown, or X-Hub-Signature-256 is not the HMAC of this body under its secret: give GitHub the relay’s url and secret exactly as created (content type application/json).';

/** Each event the relay reads, with its payload's schema and the step it makes. */
const readers: Record<
  string,
  { check: ReturnType<typeof Compile>; schema: TSchema; step: (event: never) => RelayStep }
> = {
  workflow_run: { schema: WorkflowRunEvent, check: Compile(WorkflowRunEvent), step: workflowRunStep },
  workflow_job: { schema: WorkflowJobEvent, check: Compile(WorkflowJobEvent), step: workflowJobStep },
};

/**
 * POST /api/v1/relays/github-actions?relay=rly_…: a repository's (or organization's) webhook, signed with the relay's
 * secret. Each workflow run gets a `progress` activity on the relay's channel (src/domain/relays/github-actions.ts).
 * No API key: GitHub cannot send one, it signs instead, so the signature over the exact body is the credential,
 * checked before the payload is read (only a body that is not a JSON object is refused sooner, with 400).
 */
export function githubActionsRelayEndpoint(deps: AppDependencies): Endpoint {
  return {
    ...endpoint(
      {
        schema: {
          summary: 'Relay a GitHub Actions webhook: a `progress` Live Activity per workflow run',
          description:
            'GitHub’s `workflow_run` and `workflow_job` webhooks, signed with the relay’s secret (X-Hub-Signature-256). A run’s `requested` or `in_progress` starts its activity (once per run attempt), each job’s events move its progress through the job’s steps, and the run’s `completed` ends it with the conclusion. `ping` and other events are answered and change nothing. Each change counts one against the monthly quota. docs/live-activities.md, "Relays".',
          tags: ['relays'],
          querystring: Type.Object(
            { relay: Type.String({ description: 'The relay’s id (rly_…), as in its url.' }) },
            { additionalProperties: false },
          ),
          body: Type.Object({}, { additionalProperties: true, description: 'The webhook’s JSON payload.' }),
          response: { 200: Success(RelayResultSchema), ...errorResponses(400, 401, 404, 409, 413, 415, 429) },
        },
      },
      async (request, reply) => {
        const relay = await findRelay(deps.store.db, request.query.relay);
        const secret = relay ? openSecret(deps.secretKey, relay.secret, relay.id) : null;
        const signature = request.headers['x-hub-signature-256'];
        if (
          relay === undefined ||
          secret === null ||
          !isGithubSignature(secret, rawBodyOf(request), typeof signature === 'string' ? signature : undefined)
        )
          // Every 401 names a scheme (RFC 9110 11.6.1); the API's is Bearer, as the sign-in's 401 says too.
          throw new ApiError('unauthorized', { message: BAD_SIGNATURE, headers: { 'www-authenticate': 'Bearer' } });
        const now = deps.clock.now();
        await touchRelay(deps.store.db, relay.id, now);
        const eventName = request.headers['x-github-event'];
        const reader = typeof eventName === 'string' ? readers[eventName] : undefined;
        if (reader === undefined) return reply.code(200).send({ success: true, data: { results: [] } });
        if (!reader.check.Check(request.body))
          throw validationFailed(describeSchemaErrors(reader.schema, reader.check.Errors(request.body)));
        const auth: AuthContext = {
          keyId: null,
          accountId: relay.account_id,
          kind: 'secret',
          channels: [relay.channel_code],
          session: null,
          keyFromCache: false,
        };
        const step = reader.step(request.body as never);
        const results = await runRelaySteps(deps, auth, reply, { id: relay.channel_id, code: relay.channel_code }, [
          step,
        ]);
        return reply.code(200).send({ success: true, data: { results } });
      },
    ),
    keepsRawBody: true,
  };
}
