import type { Kysely } from 'kysely';
import { contentColumnNames, type ContentColumns } from '../domain/notification-content.ts';
import { findNotificationById, type NotificationRow } from '../store/notifications-queries.ts';
import type { Database } from '../store/schema.ts';

/**
 * What a send job needs of its notification: only columns that never change once it is accepted (the content, where
 * it goes, when it was due). Its status and counters change with every batch and are not here.
 */
export type NotificationSnapshot = ContentColumns &
  Pick<NotificationRow, 'id' | 'account_id' | 'channel_id' | 'channel_code' | 'send_at' | 'created_at'>;

/**
 * The notifications this worker is sending, read once per notification instead of once per send batch (a 100,000-
 * subscriber channel is 200 batches). Measured with bench/fanout-db-time.ts, 30,000 pushes: 2 reads instead of 61
 * (docs/performance.md, "Database work per push"). Safe to keep because nothing
 * a send job reads can change: there is no way to edit a notification after it is accepted (the one column written
 * later, the throttle a dispatch takes from the app, paces the dispatch and is never read by a send job). The first batch of a notification on
 * this worker reads the row and checks that it is being sent (`sending`, or `canceled` for the local-time zones already
 * under way); later batches skip that check, which a notification with send jobs still running always passes (it
 * becomes `sent` or `failed` only once every batch has settled). Bounded: past MAX_KEPT the least recently used is
 * forgotten and read again if another batch of it comes.
 */
export class NotificationSnapshots {
  static readonly MAX_KEPT = 256;
  private readonly kept = new Map<string, NotificationSnapshot>();

  /** The notification to send a batch of, or null when it is gone or not being sent. */
  async sendable(db: Kysely<Database>, notificationId: string): Promise<NotificationSnapshot | null> {
    const known = this.kept.get(notificationId);
    if (known) {
      // Map order is use order: move it to the end, the least recently used stay first.
      this.kept.delete(notificationId);
      this.kept.set(notificationId, known);
      return known;
    }
    const row = await findNotificationById(db, notificationId);
    if (!row || (row.status !== 'sending' && row.status !== 'canceled')) return null;
    const snapshot = snapshotOf(row);
    this.kept.set(notificationId, snapshot);
    if (this.kept.size > NotificationSnapshots.MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
    return snapshot;
  }

  /** How many are kept (tests). */
  size(): number {
    return this.kept.size;
  }
}

function snapshotOf(row: NotificationRow): NotificationSnapshot {
  const { id, account_id, channel_id, channel_code, send_at, created_at } = row;
  const content = Object.fromEntries(contentColumnNames.map((column) => [column, row[column]])) as ContentColumns;
  return { id, account_id, channel_id, channel_code, send_at, created_at, ...content };
}
