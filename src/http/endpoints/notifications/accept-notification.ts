import type { FastifyReply } from 'fastify';
import { DISPATCH_NOTIFICATION, type DispatchPayload } from '../../../delivery/job-kinds.ts';
import { newId } from '../../../domain/ids.ts';
import { findChannelByCode } from '../../../store/channels-store.ts';
import { insertNotification, type NotificationRow } from '../../../store/notifications-store.ts';
import { countActiveInChannel } from '../../../store/subscribers-store.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';
import { assertChannelInScope } from '../../channel-scope.ts';
import { chargeQuota, setQuotaHeaders } from '../../quota.ts';
import { checkNotificationContent, type NotificationContent } from './notification-body.ts';
import { assertPlatformPayloadsFit } from './platform-payload-size.ts';

/**
 * Accepting a notification, the same for POST /notifications and POST /notify: check the content, the key's
 * scope and the channel, then in ONE transaction charge the quota, count the recipients and store the
 * notification. A 201 therefore means it is stored; a 429 means nothing was.
 * The dispatch job enqueued with it hands the notification to the delivery engine (src/delivery/).
 */
export async function acceptNotification(
  deps: AppDependencies,
  auth: AuthContext,
  reply: FastifyReply,
  channelCode: string,
  content: NotificationContent,
): Promise<NotificationRow> {
  const now = deps.clock.now();
  const { sendAt } = checkNotificationContent(content, now);
  assertChannelInScope(auth, channelCode);
  const channel = await findChannelByCode(deps.store.db, auth.accountId, channelCode);
  if (!channel) throw new ApiError('channel_not_found', { details: { channelCode } });
  assertPlatformPayloadsFit(content, channel.code, now);

  return deps.store.db.transaction().execute(async (trx) => {
    const quota = await chargeQuota(trx, auth.accountId, now);
    const row: NotificationRow = {
      id: newId('notification', now),
      account_id: auth.accountId,
      channel_id: channel.id,
      channel_code: channel.code,
      title: content.title ?? null,
      body: content.body ?? null,
      url: content.url ?? null,
      data: content.data ? JSON.stringify(content.data) : null,
      image_url: content.imageUrl ?? null,
      sound: content.sound ?? null,
      badge: content.badge ?? null,
      priority: content.priority ?? 'high',
      ttl_seconds: content.ttlSeconds ?? null,
      status: sendAt === null ? 'queued' : 'scheduled',
      send_at: sendAt,
      recipient_count: await countActiveInChannel(trx, channel.id),
      delivered_count: 0,
      failed_count: 0,
      targeted_count: null,
      dispatch_cursor: null,
      created_at: now,
      updated_at: now,
    };
    await insertNotification(trx, row);
    // The outbox: the dispatch job commits with the notification or not at all; run_at carries a schedule.
    const payload: DispatchPayload = { notificationId: row.id };
    await deps.queue.enqueue(trx, { kind: DISPATCH_NOTIFICATION, payload, runAt: sendAt ?? now, uniqueKey: `dispatch:${row.id}` });
    setQuotaHeaders(reply, quota);
    return row;
  });
}
