import Type from 'typebox';
import { listSubscribers } from '../../../store/subscriber-directory-queries.ts';
import { isStorableText } from '../../../domain/storable-text.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { listableChannelIds } from '../../channel-scope.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { subscriberDetails } from '../subscribers/subscriber-access.ts';
import { SubscriberDetailSchema } from '../subscribers/subscriber-detail-view.ts';
import { ExternalIdParams } from './user-params.ts';

/** Devices one person can have across channels; more than this is not a person but a misused externalId. */
const USER_SUBSCRIBERS_MAX = 1000;

export const UserSchema = Type.Object(
  {
    externalId: Type.String(),
    subscribers: Type.Array(SubscriberDetailSchema, {
      description: 'Newest first, active and unsubscribed, in every channel the key may see.',
    }),
  },
  { title: 'User' },
);

export function getUserEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "List a person's subscribers across channels",
        description: 'Secret key (a scoped key sees only its channels). 404 when no subscriber has that externalId.',
        tags: ['users'],
        params: ExternalIdParams,
        response: { 200: Success(UserSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const { externalId } = request.params;
      // No subscriber can have an id the database cannot store.
      if (!isStorableText(externalId))
        throw new ApiError('not_found', { message: 'No subscriber has that externalId.' });
      const channelIds = await listableChannelIds(deps.store.db, auth, undefined);
      const rows = await listSubscribers(deps.store.db, {
        accountId: auth.accountId,
        channelIds,
        externalId,
        platform: null,
        status: null,
        tag: null,
        createdAfter: null,
        createdBefore: null,
        before: null,
        limit: USER_SUBSCRIBERS_MAX,
      });
      if (rows.length === 0) throw new ApiError('not_found', { message: 'No subscriber has that externalId.' });
      return {
        success: true as const,
        data: { externalId, subscribers: await subscriberDetails(deps.store.db, rows) },
      };
    },
  );
}
