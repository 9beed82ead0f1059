import Type from 'typebox';
import { sealAppCredentials } from '../../../delivery/app-credentials.ts';
import { uploadedTokenUriPolicy } from '../../../delivery/fcm/fcm-token-uri.ts';
import { updateApp } from '../../../store/apps-queries.ts';
import { ApiError, validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Nullable, Success } from '../../schemas.ts';
import { AppIdParams, loadApp } from './app-access.ts';
import { AndroidCredentials, AppName, AppThrottle, IosCredentials, WebCredentials } from './app-body.ts';
import { appView, AppSchema } from './app-view.ts';

/**
 * Renames an app or replaces (or, with null, removes) a platform's credentials; parts left out stay. New credentials
 * set the status back to ok: the delivery worker picks them up on its next client for the app.
 */
export function updateAppEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "Rename an app, replace a platform's credentials or set its throttle",
        description:
          'Parts left out stay as they are; `ios: null` or `android: null` removes them. Replacing credentials clears a failing status.',
        tags: ['apps'],
        params: AppIdParams,
        body: Type.Object(
          {
            name: Type.Optional(AppName),
            ios: Type.Optional(Nullable(IosCredentials)),
            android: Type.Optional(Nullable(AndroidCredentials)),
            web: Type.Optional(WebCredentials),
            throttlePerMinute: Type.Optional(AppThrottle),
          },
          { additionalProperties: false },
        ),
        response: { 200: Success(AppSchema), ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const app = await loadApp(deps, auth, request.params.id);
      // An empty body (allowed with Content-Type: application/json) changes nothing.
      const { name, throttlePerMinute, ...credentials } = request.body ?? {};
      if (name !== undefined && name.trim() === '')
        throw validationFailed([{ field: 'name', message: 'must not be blank' }]);
      const sealed = sealAppCredentials(
        deps.secretKey,
        app.id,
        credentials,
        false,
        uploadedTokenUriPolicy(deps.config),
      );
      if (!sealed.ok) throw validationFailed(sealed.problems);
      const replaced = Object.keys(sealed.columns).length > 0;
      const updated = await updateApp(deps.store.db, auth.accountId, app.id, {
        ...sealed.columns,
        ...(name !== undefined ? { name: name.trim() } : {}),
        ...(throttlePerMinute !== undefined ? { throttle_per_minute: throttlePerMinute } : {}),
        ...(replaced
          ? { credentials_status: 'ok' as const, credentials_error: null, credentials_failed_at: null }
          : {}),
        updated_at: deps.clock.now(),
      });
      if (!updated) throw new ApiError('not_found', { message: 'No app with that id.' });
      return { success: true as const, data: appView(updated) };
    },
  );
}
