import Type from 'typebox';
import { platforms } from '../../../domain/device-token.ts';
import { isStorableText } from '../../../domain/storable-text.ts';
import { listSubscribers } from '../../../store/subscriber-directory-queries.ts';
import { validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { listableChannelIds } from '../../channel-scope.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { readPageQuery, splitPage } from '../../pagination.ts';
import { ChannelCode, errorResponses, PageQuery, StringEnum, SuccessList } from '../../schemas.ts';
import { subscriberDetails } from './subscriber-access.ts';
import { SubscriberDetailSchema } from './subscriber-detail-view.ts';

const CreatedBound = (description: string) =>
  Type.Optional(
    Type.String({
      format: 'date-time',
      maxLength: 40,
      description,
      hint: 'must be an ISO 8601 time with offset, like 2026-05-01T09:00:00Z',
    }),
  );

export function listSubscribersEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'List subscribers, newest first',
        description:
          'Secret key (a scoped key sees only its channels). Never shows a device token beyond a short prefix.',
        tags: ['subscribers'],
        querystring: Type.Object(
          {
            channelCode: Type.Optional(ChannelCode),
            externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            idPrefix: Type.Optional(
              Type.String({
                pattern: '^sub_[0-9a-z]{0,26}$',
                description: 'Subscribers whose id starts with this, e.g. sub_01j9 (the dashboard search).',
                hint: 'must be the start of a subscriber id, like sub_01j9',
              }),
            ),
            platform: Type.Optional(StringEnum(platforms)),
            status: Type.Optional(StringEnum(['active', 'unsubscribed'] as const)),
            tag: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            createdAfter: CreatedBound('Only subscribers created after this time.'),
            createdBefore: CreatedBound('Only subscribers created before this time.'),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: SuccessList(SubscriberDetailSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const query = request.query;
      const paging = readPageQuery(query, 'subscriber');
      for (const field of ['externalId', 'tag'] as const) {
        const value = query[field];
        if (value !== undefined && !isStorableText(value))
          throw validationFailed([{ field, message: 'must not contain the NUL character (U+0000)' }]);
      }
      const createdAfter = readTime(query.createdAfter, 'createdAfter');
      const createdBefore = readTime(query.createdBefore, 'createdBefore');
      const channelIds = await listableChannelIds(deps.store.db, auth, query.channelCode);
      const rows = await listSubscribers(deps.store.db, {
        accountId: auth.accountId,
        channelIds,
        platform: query.platform ?? null,
        status: query.status ?? null,
        externalId: query.externalId ?? null,
        idPrefix: query.idPrefix ?? null,
        tag: query.tag ?? null,
        createdAfter,
        createdBefore,
        before: paging.cursor,
        limit: paging.fetch,
      });
      const { page, nextCursor } = splitPage(rows, paging, (row) => row.id);
      return { success: true as const, data: await subscriberDetails(deps.store.db, page), nextCursor };
    },
  );
}

function readTime(value: string | undefined, field: string): number | null {
  if (value === undefined) return null;
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed) || !/(Z|[+-]\d{2}:\d{2})$/i.test(value))
    throw validationFailed([{ field, message: 'must be an ISO 8601 time with offset, like 2026-05-01T09:00:00Z' }]);
  return parsed;
}
