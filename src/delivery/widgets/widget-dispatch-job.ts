import type { JobHandler } from '../../queue/worker-pool.ts';
import { pageWidgetReloadTargets } from '../../store/widget-push-tokens-queries.ts';
import type { SendDependencies } from '../channel-providers.ts';
import { DISPATCH_PAGE_SIZE, SEND_BATCH_SIZE } from '../job-kinds.ts';
import { dispatchWidgetReloadJob, sendWidgetReloadJob, widgetSendJobKey } from './widget-jobs.ts';

/**
 * A widget reload's fan-out, step one (the Live Activity dispatch's shape, same page and batch sizes): pages the
 * channel's active iOS subscribers with a widget push token in id order and enqueues send jobs of up to 500, one
 * transaction per page. It keeps no cursor: a dispatch that dies pages again from the start, and each send job's unique
 * key (reload, first subscriber, round) makes re-enqueueing a batch already enqueued a no-op. A device that got the
 * reload twice (pages shifted by subscribers leaving in between) reloads its widgets twice, which changes nothing.
 */
export function dispatchWidgetReloadHandler(deps: SendDependencies): JobHandler {
  return dispatchWidgetReloadJob.handler(async ({ reloadId, accountId, channelId }, _job, { signal }) => {
    const { db } = deps.store;
    let after: string | null = null;
    let enqueued = 0;
    for (;;) {
      if (signal.aborted) throw new Error('worker is shutting down; the dispatch pages again from the start');
      const page = await pageWidgetReloadTargets(db, { channelId, after, limit: DISPATCH_PAGE_SIZE });
      if (page.length === 0) break;
      await db.transaction().execute(async (trx) => {
        for (let start = 0; start < page.length; start += SEND_BATCH_SIZE) {
          const subscriberIds = page.slice(start, start + SEND_BATCH_SIZE);
          await sendWidgetReloadJob.enqueue(
            deps.queue,
            trx,
            { reloadId, accountId, channelId, subscriberIds, round: 0 },
            { uniqueKey: widgetSendJobKey(reloadId, subscriberIds[0]!, 0) },
          );
        }
      });
      enqueued += page.length;
      after = page[page.length - 1]!;
    }
    deps.logger.info({ reloadId, channelId, targeted: enqueued }, 'widget reload dispatch finished');
  });
}
