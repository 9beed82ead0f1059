import type { Command } from 'commander';
import { callApi, connect, parseJsonObject, withApiOptions, type ApiOptions } from '../api-client.ts';
import { printResult } from '../cli-output.ts';
import { describeActivity } from './live-activity-flags.ts';

interface EndOptions extends ApiOptions {
  fields?: string;
  dismissAt?: string;
}

/** `clarion live end ID`: POST /api/v1/live-activities/{id}/end, with optional final fields. */
export function addLiveEnd(live: Command): void {
  withApiOptions(
    live
      .command('end')
      .description('end a Live Activity, over HTTP with an API key')
      .argument('<id>', 'the Live Activity (lva_…)')
      .option('--fields <json>', 'final fields as a JSON object, merged like an update')
      .option(
        '--dismiss-at <time>',
        'ISO 8601 time when the ended activity leaves the Lock Screen (a past time: at once)',
      ),
  ).action(async (id: string, options: EndOptions) => {
    const end = {
      ...(options.fields !== undefined ? { fields: parseJsonObject('--fields', options.fields) } : {}),
      ...(options.dismissAt !== undefined ? { dismissAt: options.dismissAt } : {}),
    };
    const ended = await callApi(await connect(options), (client) => client.endLiveActivity(id, end));
    printResult(options, ended, [describeActivity('Ended', ended)]);
  });
}
