import type { FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import { DISPATCH_NOTIFICATION, type DispatchPayload } from '../../../delivery/job-kinds.ts';
import type { Audience } from '../../../domain/audience.ts';
import { newId } from '../../../domain/ids.ts';
import { nextLocalOccurrence } from '../../../domain/local-time.ts';
import { contentToColumns } from '../../../domain/notification-content.ts';
import { findAccount } from '../../../store/accounts-store.ts';
import { isApiKeyActive } from '../../../store/api-keys-store.ts';
import { storeAcceptedNotification } from '../../../queue/store-accepted-notification.ts';
import type { NotificationRow } from '../../../store/notifications-store.ts';
import type { Database } from '../../../store/schema.ts';
import { readSendContext } from '../../../store/send-context-store.ts';
import { distinctSubscriberTimezones } from '../../../store/subscribers-store.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';
import { unauthorized } from '../../auth.ts';
import { assertChannelInScope } from '../../channel-scope.ts';
import { quotaExceeded, quotaTerms, setQuotaHeaders } from '../../quota.ts';
import { checkNotificationContent, type NotificationRequest } from './notification-body.ts';
import { assertPlatformPayloadsFit } from './platform-payload-size.ts';

/**
 * Accepting a notification, the same for POST /notifications and POST /notify: check the content and the key's
 * scope, then in ONE transaction (on SQLite shared with the other requests of the same moment, each in a savepoint of
 * its own: src/store/sqlite/group-commit.ts) read the caller's standing and the channel, charge the quota, store the
 * notification with its recipient count and enqueue its dispatch. A 201 therefore means it is stored; a 429 means
 * nothing was.
 *
 * Measured (docs/performance.md, "Accept path"): 11 SQL statements per accepted notification became 6 on SQLite —
 * BEGIN, the context read (which also re-checks a key that src/http/auth.ts took from its cache), the quota upsert,
 * the INSERT that counts the recipients, the job INSERT, COMMIT — and the API key and channel lookups before the
 * transaction are gone; 12 on PostgreSQL became 2 — the context read, and one statement, its own transaction, for the
 * quota, the notification, the job and its NOTIFY (src/queue/store-accepted-notification.ts). Errors keep their
 * order: 401, 403 (scope), 404, 413, 429.
 * The dispatch job enqueued with it hands the notification to the delivery engine (src/delivery/).
 */
export async function acceptNotification(
  deps: AppDependencies,
  auth: AuthContext,
  reply: FastifyReply,
  channelCode: string,
  content: NotificationRequest,
  audience: Audience | null = null,
): Promise<NotificationRow> {
  const now = deps.clock.now();
  const { sendAt, localTime } = checkNotificationContent(content, now);
  assertChannelInScope(auth, channelCode);

  // A notification for the whole channel, now or at one time, is stored by one write where the store can
  // (src/queue/store-accepted-notification.ts); the context read before it needs no snapshot shared with it.
  const oneWrite = audience === null && localTime === null;
  const accept = async (trx: Kysely<Database>) => {
    const context = await readSendContext(trx, { accountId: auth.accountId, keyId: auth.keyId, channelCode });
    // Revoked, rotated out or expired since the key was cached (src/http/auth.ts): refused, and nothing is stored.
    if (context.key !== null && (context.key === undefined || !isApiKeyActive(context.key, now))) throw unauthorized();
    auth.keyFromCache = false;
    const channel = context.channel;
    if (!channel) throw new ApiError('channel_not_found', { details: { channelCode } });
    if (channel.app_id === null && deps.config.requireOwnApp)
      throw new ApiError('app_required', { details: { channelCode } });
    assertPlatformPayloadsFit(content, channel.code);
    const terms = quotaTerms(context.account, now);
    const id = newId('notification', now);
    const dispatches = await planDispatches(trx, {
      notificationId: id,
      channelId: channel.id,
      accountId: auth.accountId,
      sendAt,
      localTime,
      audience,
      now,
    });
    const stored: Omit<NotificationRow, 'recipient_count'> = {
      id,
      account_id: auth.accountId,
      channel_id: channel.id,
      channel_code: channel.code,
      ...contentToColumns(content),
      status: sendAt === null && localTime === null ? 'queued' : 'scheduled',
      send_at: sendAt,
      delivered_count: 0,
      failed_count: 0,
      skipped_count: 0,
      audience: audience === null ? null : JSON.stringify(audience),
      targeted_count: null,
      dispatches_pending: dispatches.length,
      deliver_at_local_time: content.deliverAtLocalTime ?? null,
      canceled_at: null,
      failure_reason: null,
      created_at: now,
      updated_at: now,
    };
    // The quota charge, the notification and (the outbox) its dispatch jobs: stored together or not at all; run_at
    // carries the schedule. On PostgreSQL usually one statement (src/queue/store-accepted-notification.ts); a targeted
    // send counts its audience in the INSERT (audience-filter.ts).
    const { used, recipientCount } = await storeAcceptedNotification(trx, deps.store, deps.queue, {
      quota: { accountId: auth.accountId, period: terms.period, limit: terms.limit },
      notification: stored,
      dispatches: dispatches.map((dispatch) => ({
        kind: DISPATCH_NOTIFICATION,
        payload: dispatch,
        runAt: dispatch.dueAt,
        uniqueKey: `dispatch:${id}:${dispatch.timezone ?? '*'}`,
      })),
      quotaRefused: (usedBefore) => quotaExceeded(terms, usedBefore),
      audience,
    });
    return { row: { ...stored, recipient_count: recipientCount }, quota: terms.state(used) };
  };
  const { row, quota } = await deps.store.runShortTransaction(accept, { oneWrite });
  // Counted once committed: a request that failed in its transaction stored nothing.
  (row.status === 'scheduled' ? deps.metrics.acceptedScheduled : deps.metrics.acceptedNow).inc();
  setQuotaHeaders(reply, quota);
  return row;
}

/**
 * One dispatch, due at sendAt (or now); or, for local-time delivery, one per time zone among the channel's
 * subscribers, each due at the zone's next occurrence of the local time on or after sendAt (or now). Subscribers
 * without a time zone follow the account's default zone, else UTC.
 */
async function planDispatches(
  trx: Kysely<Database>,
  input: {
    notificationId: string;
    channelId: string;
    accountId: string;
    sendAt: number | null;
    localTime: { hour: number; minute: number } | null;
    audience: Audience | null;
    now: number;
  },
): Promise<Array<DispatchPayload & { dueAt: number }>> {
  const notBefore = input.sendAt ?? input.now;
  if (input.localTime === null) return [{ notificationId: input.notificationId, dueAt: notBefore }];
  const zones = await distinctSubscriberTimezones(trx, input.channelId, input.now, input.audience);
  if (zones.length === 0) return [{ notificationId: input.notificationId, dueAt: notBefore }];
  const fallbackZone = (await findAccount(trx, input.accountId))?.default_timezone ?? 'UTC';
  const localTime = input.localTime;
  return zones.map((timezone) => ({
    notificationId: input.notificationId,
    timezone,
    dueAt: nextLocalOccurrence(localTime, timezone ?? fallbackZone, notBefore),
  }));
}
