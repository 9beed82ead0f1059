import type { JobHandler } from '../../queue/worker-pool.ts';
import type { SendDependencies } from '../channel-providers.ts';
import { dispatchWidgetReloadHandler } from './widget-dispatch-job.ts';
import { DISPATCH_WIDGET_RELOAD, SEND_WIDGET_RELOAD } from './widget-jobs.ts';
import { sendWidgetReloadHandler } from './widget-send-job.ts';

/** The widget reload job handlers, for the delivery worker's pool (src/worker.ts). */
export function widgetHandlers(deps: SendDependencies): Record<string, JobHandler> {
  return {
    [DISPATCH_WIDGET_RELOAD]: dispatchWidgetReloadHandler(deps),
    [SEND_WIDGET_RELOAD]: sendWidgetReloadHandler(deps),
  };
}
