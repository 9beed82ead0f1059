import Type from 'typebox';
import { findApiKey, isApiKeyActive, MAX_ROTATION_GRACE_MS, rotateApiKey } from '../../../store/api-keys-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { apiKeyView, ApiKeySchema, CreatedApiKeySchema } from './key-view.ts';

const MAX_GRACE_SECONDS = MAX_ROTATION_GRACE_MS / 1000;

export function rotateKeyEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      // The body is optional: a bodiless POST rotates with no grace.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
      schema: {
        summary: 'Rotate an API key: a new value for the same name, kind and scope (dashboard session only)',
        description:
          'The new key is in this response only. The old one stops working after `graceSeconds` (default 0: at once; at most 7 days), so deployments can switch over. Only an active key can be rotated (409 otherwise). Needs X-CSRF-Token.',
        tags: ['api keys'],
        params: IdParams('apiKey'),
        body: Type.Object(
          {
            graceSeconds: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: MAX_GRACE_SECONDS,
                default: 0,
                description: `How long the old value keeps working, 0–${MAX_GRACE_SECONDS} seconds (7 days).`,
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Success(Type.Object({ key: CreatedApiKeySchema, replaced: ApiKeySchema }, { title: 'RotatedApiKey' })),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const accountId = request.auth!.accountId;
      const old = await findApiKey(deps.store.db, request.params.id);
      if (!old || old.account_id !== accountId)
        throw new ApiError('not_found', { message: 'No API key with that id in this account.' });
      const now = deps.clock.now();
      if (!isApiKeyActive(old, now)) {
        throw new ApiError('conflict', {
          message: 'Only an active key can be rotated; this one is revoked or expired. Create a new key instead.',
        });
      }
      if (old.replaced_by !== null) {
        throw new ApiError('conflict', {
          message: `This key was already rotated and is in its grace period; rotate its replacement ${old.replaced_by} instead.`,
        });
      }
      const created = await rotateApiKey(deps.store.db, old.id, {
        graceMs: (request.body.graceSeconds ?? 0) * 1000,
        now,
      });
      if (!created)
        throw new ApiError('conflict', { message: 'The key was revoked or rotated meanwhile; reload and try again.' });
      const replaced = (await findApiKey(deps.store.db, old.id))!;
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({
        success: true,
        data: { key: { ...apiKeyView(created.row, now), key: created.value }, replaced: apiKeyView(replaced, now) },
      });
    },
  );
}
