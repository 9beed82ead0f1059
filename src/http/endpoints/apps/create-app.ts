import Type from 'typebox';
import { sealAppCredentials } from '../../../delivery/app-credentials.ts';
import { uploadedTokenUriPolicy } from '../../../delivery/fcm/fcm-token-uri.ts';
import { newId } from '../../../domain/ids.ts';
import { insertApp } from '../../../store/apps-queries.ts';
import { validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { assertAppManager } from './app-access.ts';
import { AndroidCredentials, AppName, IosCredentials, WebCredentials, AppThrottle } from './app-body.ts';
import { appView, AppSchema } from './app-view.ts';

export function createAppEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Create an app with its own iOS, Android and web credentials (private keys are never shown again)',
        description:
          'The .p8 key must be a P-256 key and the service account must have what FCM needs, with `token_uri` https://oauth2.googleapis.com/token (any https URL when the operator allows private addresses); without `web` a VAPID pair is generated. Secrets are encrypted with the instance key; responses show fingerprints only.',
        tags: ['apps'],
        body: Type.Object(
          {
            name: AppName,
            ios: Type.Optional(IosCredentials),
            android: Type.Optional(AndroidCredentials),
            web: Type.Optional(WebCredentials),
            throttlePerMinute: Type.Optional(AppThrottle),
          },
          { additionalProperties: false },
        ),
        response: { 201: Success(AppSchema), ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      assertAppManager(auth);
      const now = deps.clock.now();
      const id = newId('app', now);
      const { name, throttlePerMinute, ...credentials } = request.body;
      const sealed = sealAppCredentials(deps.secretKey, id, credentials, true, uploadedTokenUriPolicy(deps.config));
      if (!sealed.ok) throw validationFailed(sealed.problems);
      if (name.trim() === '') throw validationFailed([{ field: 'name', message: 'must not be blank' }]);
      const app = await insertApp(deps.store.db, {
        id,
        accountId: auth.accountId,
        name: name.trim(),
        sealed: sealed.columns,
        throttlePerMinute: throttlePerMinute ?? null,
        now,
      });
      return reply.code(201).send({ success: true, data: appView(app) });
    },
  );
}
