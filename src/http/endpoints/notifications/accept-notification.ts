import type { FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import { DISPATCH_NOTIFICATION, type DispatchPayload } from '../../../delivery/job-kinds.ts';
import type { Audience } from '../../../domain/audience.ts';
import { newId } from '../../../domain/ids.ts';
import { nextLocalOccurrence } from '../../../domain/local-time.ts';
import { contentToColumns } from '../../../domain/notification-content.ts';
import { findAccount } from '../../../store/accounts-queries.ts';
import { storeAcceptedNotification } from '../../../queue/store-accepted-notification.ts';
import type { NotificationRow } from '../../../store/notifications-queries.ts';
import type { Database } from '../../../store/schema.ts';
import { distinctSubscriberTimezones } from '../../../store/subscribers-queries.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';
import { admitSend } from '../../admission.ts';
import { quotaExceeded } from '../../quota.ts';
import { checkNotificationContent, type NotificationRequest } from './notification-body.ts';
import { assertPlatformPayloadsFit } from './platform-payload-size.ts';

/**
 * Accepting a notification, the same for POST /notifications and POST /notify: check the content, then admit it
 * (src/http/admission.ts: the key's standing, scope, channel, app, payload fit, quota) and, in admission's ONE
 * transaction, store it with its recipient count and enqueue its dispatch. A 201 therefore means it is stored; a 429
 * means nothing was. The dispatch job enqueued with it hands the notification to the delivery engine (src/delivery/).
 * Measured statements per request: docs/performance.md, "Accept path".
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
  const row = await admitSend(deps, auth, reply, {
    channelCode,
    prepare: (channel) => {
      assertPlatformPayloadsFit(content, channel.code, deps.config.baseUrl);
      return channel;
    },
    // A notification for the whole channel, now or at one time, is stored by one write where the store can
    // (src/queue/store-accepted-notification.ts).
    oneWrite: audience === null && localTime === null,
    store: async (trx, channel, terms) => {
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
        held_count: 0,
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
      // carries the schedule. A targeted send counts its audience in the INSERT (audience-filter.ts).
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
      return { stored: { ...stored, recipient_count: recipientCount }, used };
    },
  });
  // Counted once committed: a request that failed in its transaction stored nothing.
  (row.status === 'scheduled' ? deps.metrics.acceptedScheduled : deps.metrics.acceptedNow).inc();
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
