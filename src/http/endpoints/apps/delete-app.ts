import Type from 'typebox';
import { channelsOfApp, deleteApp } from '../../../store/apps-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { AppIdParams, loadApp } from './app-access.ts';

export function deleteAppEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Delete an app and its credentials (not while a channel uses it)',
        tags: ['apps'],
        params: AppIdParams,
        response: {
          200: Success(Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { title: 'DeletedApp' })),
          ...errorResponses(401, 403, 404, 409, 429),
        },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const app = await loadApp(deps, auth, request.params.id);
      const channels = await channelsOfApp(deps.store.db, app.id);
      if (channels.length > 0) {
        throw new ApiError('conflict', {
          message: 'Channels still deliver through this app: bind them to another app first.',
          details: { appId: app.id, channelCodes: channels },
        });
      }
      if (!(await deleteApp(deps.store.db, auth.accountId, app.id)))
        throw new ApiError('not_found', { message: 'No app with that id.' });
      return { success: true as const, data: { id: app.id, deleted: true as const } };
    },
  );
}
