import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { AppIdParams, loadApp } from './app-access.ts';
import { appView, AppSchema } from './app-view.ts';

export function getAppEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Get an app: its fingerprints and whether a provider refused its credentials (never a private key)',
        tags: ['apps'],
        params: AppIdParams,
        response: { 200: Success(AppSchema), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => ({
      success: true as const,
      data: appView(await loadApp(deps, request.auth!, request.params.id)),
    }),
  );
}
