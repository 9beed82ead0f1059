import { sql, type Kysely } from 'kysely';
import type { Platform } from '../../domain/device-token.ts';
import type { ReceiptEvent } from '../../domain/receipt.ts';
import { preparedQuery } from '../prepared-query.ts';
import { counterOf, receiptPairsSelect } from '../receipts-queries.ts';
import type { Database } from '../schema.ts';

/** The values of one report's statement; `event` is its shape (one compiled text per event). */
export type OneReceiptValues = {
  event: ReceiptEvent;
  notificationId: string;
  subscriberId: string;
  actionId: string | null;
  now: number;
  /** The id of its webhook event, used only when an open or an action is stored. */
  eventId: string;
  /**
   * The webhook event's `data` as JSON text, in four parts around the three values the database fills in:
   * `dataHead` + the channel's code + `dataMiddle` + the subscriber's external id + its platform + `dataTail`
   * (recordOneReceipt, src/store/receipts-queries.ts).
   */
  dataHead: string;
  dataMiddle: string;
  dataTail: string;
};

/**
 * On PostgreSQL, where every statement is a round trip, one report (the usual request of POST /api/v1/receipts) goes
 * as ONE statement with data-modifying CTEs instead of six (BEGIN, the pair's SELECT, the receipts' INSERT, the
 * counters' UPDATE, the webhook event's INSERT, COMMIT): `pair` reads the (notification, subscriber) pair as the
 * batch's SELECT does (src/store/receipts-queries.ts); `stored` inserts the report's row and, for an open, a
 * dismissal or an action, the `received` it implies, only when the pair exists with receipts on, and each once per
 * (notification, subscriber, event) (ON CONFLICT DO NOTHING); `counted` adds what was stored to the platform's
 * counters; `told`, for an open or an action, writes its webhook event when the report's own row was stored. The
 * statement is complete by itself: run outside a transaction it is its own. Measured (docs/performance.md,
 * "Receipts"): against the same work as compiled statements in a transaction, the server's CPU per receipt about
 * halved and PostgreSQL's fell by a fifth to a quarter.
 *
 * Returns no row when the pair does not exist; else whether the account has receipts on (`receipts_enabled`) and
 * whether the report's own row was stored now (`counted`). The caller decides `expired` before (recordOneReceipt).
 * Compiled once per event (src/store/prepared-query.ts), a named statement on each connection.
 */
export const recordReceiptInOneStatement = preparedQuery(
  (db, param, values: OneReceiptValues) => {
    const { event } = values;
    const counter = counterOf[event];
    // The CTEs' bodies name the CTEs before them: the same Kysely instance, typed with them.
    const w = db as unknown as Kysely<WithCtes>;
    // The report's row and, for an open, a dismissal or an action, the `received` it implies. `created_at` is cast:
    // a parameter in a UNION's branches would otherwise be text, which a BIGINT column does not take.
    const row = (rowEvent: ReceiptEvent, withActionId: boolean) =>
      w
        .selectFrom('pair')
        .select((eb) => [
          eb.val(param<string>('notificationId')).as('notification_id'),
          eb.val(param<string>('subscriberId')).as('subscriber_id'),
          sql.lit(rowEvent).as('event'),
          (withActionId ? sql<string | null>`${param<string | null>('actionId')}::text` : sql<null>`null::text`).as(
            'action_id',
          ),
          eb.cast(eb.val(param<number>('now')), 'bigint').as('created_at'),
        ])
        .where('pair.receipts_enabled', '=', 1);
    const rows = event === 'received' ? row(event, false) : row(event, true).unionAll(row('received', false));
    const storedCount = (rowEvent: ReceiptEvent) =>
      w
        .selectFrom('stored')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('stored.event', '=', sql.lit(rowEvent));
    const reportStored = w.selectFrom('stored').select('stored.event').where('stored.event', '=', sql.lit(event));
    const written = db
      .with('pair', () =>
        receiptPairsSelect(db)
          .where('notifications.id', '=', param<string>('notificationId'))
          .where('subscribers.id', '=', param<string>('subscriberId')),
      )
      .with('stored', () =>
        w
          .insertInto('receipts')
          .columns(['notification_id', 'subscriber_id', 'event', 'action_id', 'created_at'])
          .expression(rows as never)
          .onConflict((conflict) => conflict.columns(['notification_id', 'subscriber_id', 'event']).doNothing())
          .returning('event'),
      )
      .with('counted', () =>
        w
          .updateTable('notification_platform_stats')
          .set((eb) => ({
            [counter]: eb(counter, '+', storedCount(event)),
            ...(event === 'received' ? {} : { received: eb('received', '+', storedCount('received')) }),
          }))
          .where('notification_id', '=', param<string>('notificationId'))
          .where('platform', '=', (eb) => eb.selectFrom('pair').select('pair.platform'))
          .where(({ exists }) => exists(w.selectFrom('stored').select('stored.event'))),
      );
    if (event !== 'opened' && event !== 'action')
      return written
        .selectFrom('pair')
        .select(({ exists }) => ['pair.receipts_enabled', exists(reportStored).as('counted')]);
    // The webhook event of an open or an action, when the report was stored now.
    return written
      .with('told', () =>
        w
          .insertInto('events')
          .columns(['id', 'account_id', 'type', 'data', 'created_at'])
          .expression(
            w
              .selectFrom('pair')
              .select((eb) => [
                eb.val(param<string>('eventId')).as('id'),
                'pair.account_id',
                sql.lit(event === 'opened' ? 'notification.opened' : 'notification.action').as('type'),
                // The text JSON.stringify writes: to_json escapes a string as it does.
                sql<string>`${param<string>('dataHead')}::text || to_json(pair.channel_code)::text || ${param<string>('dataMiddle')}::text || coalesce(to_json(pair.external_id)::text, 'null') || ',"platform":' || to_json(pair.platform)::text || ${param<string>('dataTail')}::text`.as(
                  'data',
                ),
                eb.val(param<number>('now')).as('created_at'),
              ])
              .where(({ exists }) => exists(reportStored)) as never,
          ),
      )
      .selectFrom('pair')
      .select(({ exists }) => ['pair.receipts_enabled', exists(reportStored).as('counted')]);
  },
  (values) => values.event,
);

/** The database as the CTEs' bodies see it: with the pair and the rows stored. */
type WithCtes = Database & {
  pair: {
    notification_id: string;
    account_id: string;
    channel_code: string;
    receipts_enabled: number;
    subscriber_id: string;
    platform: Platform;
    external_id: string | null;
  };
  stored: { event: ReceiptEvent };
};

export type RecordReceiptInOneStatement = typeof recordReceiptInOneStatement;
