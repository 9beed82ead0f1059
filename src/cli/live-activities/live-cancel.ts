import type { Command } from 'commander';
import { callApi, connect, withApiOptions, type ApiOptions } from '../api-client.ts';
import { printResult } from '../cli-output.ts';
import { describeActivity } from './live-activity-flags.ts';

/** `clarion live cancel ID`: POST /api/v1/live-activities/{id}/cancel, for an activity started with `--send-at`. */
export function addLiveCancel(live: Command): void {
  withApiOptions(
    live
      .command('cancel')
      .description('cancel a scheduled Live Activity before it starts, over HTTP with an API key')
      .argument('<id>', 'the Live Activity (lva_…)'),
  ).action(async (id: string, options: ApiOptions) => {
    const canceled = await callApi(await connect(options), (client) => client.cancelLiveActivity(id));
    printResult(options, canceled, [describeActivity('Canceled', canceled)]);
  });
}
