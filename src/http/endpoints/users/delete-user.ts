import Type from 'typebox';
import { eraseUser } from '../../../store/user-erasure-queries.ts';
import { isStorableText } from '../../../domain/storable-text.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { assertUnscoped, ExternalIdParams } from './user-params.ts';

const ErasureSchema = Type.Object(
  {
    externalId: Type.String(),
    deletedSubscribers: Type.Array(
      Type.Object({ id: Type.String(), channelCode: Type.String(), platform: Type.String() }),
    ),
  },
  { title: 'UserErasure' },
);

export function deleteUserEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Erase a person: remove all their subscribers, tokens and delivery records',
        description:
          'Secret key without a channel scope. Removes every subscriber with this externalId in every channel, with their device tokens, push-to-start tokens, tags, failure records and Live Activity tokens, blanks the externalId in earlier events and webhook messages, and takes it out of the `externalIds` audiences of notifications and Live Activities; reports `subscriber.deleted` for each subscriber. Not reversible. 404 when nothing in the account names that externalId.',
        tags: ['users'],
        params: ExternalIdParams,
        response: { 200: Success(ErasureSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      assertUnscoped(auth);
      const { externalId } = request.params;
      // No subscriber can have an id the database cannot store.
      if (!isStorableText(externalId))
        throw new ApiError('not_found', { message: 'No subscriber has that externalId.' });
      const now = deps.clock.now();
      const erased = await deps.store.db
        .transaction()
        .execute((trx) => eraseUser(trx, { accountId: auth.accountId, externalId, now }));
      if (erased.subscribers.length === 0 && erased.audiences === 0)
        throw new ApiError('not_found', { message: 'Nothing in this account names that externalId.' });
      const forgotten = await deps.store.forgetDeleted();
      request.log.info({ deletedSubscribers: erased.subscribers.length, audiences: erased.audiences }, 'user erased');
      if (!forgotten)
        request.log.warn(
          'after an erasure the SQLite WAL could not be truncated (another connection was reading it); its old frames go at the next truncation',
        );
      return { success: true as const, data: { externalId, deletedSubscribers: erased.subscribers } };
    },
  );
}
