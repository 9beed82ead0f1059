import Type from 'typebox';
import { checkAppCredentials } from '../../../delivery/app-credentials-check.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Nullable, Success } from '../../schemas.ts';
import { AppIdParams, loadApp } from './app-access.ts';

const PlatformCheck = Type.Object(
  {
    ok: Type.Boolean({ description: 'Whether the provider accepted the credentials.' }),
    providerAnswer: Type.String({
      description:
        'What the provider said, e.g. BadDeviceToken (expected for the made-up token) or apns:InvalidProviderToken.',
    }),
    message: Type.String(),
  },
  { title: 'AppPlatformCheck' },
);

export function testAppCredentialsEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary:
          "Test an app's credentials with its providers (a push to a made-up token: no device receives anything)",
        description:
          'Opens a connection to APNs and fetches an FCM access token with the stored credentials, and reports what each provider said. Changes nothing.',
        tags: ['apps'],
        params: AppIdParams,
        response: {
          200: Success(
            Type.Object(
              {
                appId: Type.String(),
                ios: Nullable(PlatformCheck),
                android: Nullable(PlatformCheck),
                web: PlatformCheck,
              },
              { title: 'AppCredentialsCheck' },
            ),
          ),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const app = await loadApp(deps, request.auth!, request.params.id);
      const check = await checkAppCredentials({ app, clients: deps.providerClients });
      return { success: true as const, data: { appId: app.id, ...check } };
    },
  );
}
