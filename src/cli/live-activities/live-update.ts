import type { Command } from 'commander';
import { callApi, connect, parseJsonObject, withApiOptions, type ApiOptions } from '../api-client.ts';
import { printResult } from '../cli-output.ts';
import { alertFrom, describeActivity, type AlertFlags } from './live-activity-flags.ts';

interface UpdateOptions extends ApiOptions, AlertFlags {
  fields: string;
  staleAt?: string;
}

/** `clarion live update ID`: POST /api/v1/live-activities/{id}/update; the fields are merged into the current ones. */
export function addLiveUpdate(live: Command): void {
  withApiOptions(
    live
      .command('update')
      .description('update a Live Activity, over HTTP with an API key')
      .argument('<id>', 'the Live Activity (lva_…)')
      .requiredOption(
        '--fields <json>',
        `fields to change as a JSON object, e.g. '{"progress": 0.6}' (null removes an optional one)`,
      )
      .option(
        '--alert-title <text>',
        'makes the update alerting (the screen lights up); without it the update is silent',
      )
      .option('--alert-body <text>', 'alert text')
      .option('--stale-at <time>', 'ISO 8601 time when this content goes stale'),
  ).action(async (id: string, options: UpdateOptions) => {
    const update = {
      fields: parseJsonObject('--fields', options.fields),
      ...alertFrom(options),
      ...(options.staleAt !== undefined ? { staleAt: options.staleAt } : {}),
    };
    const updated = await callApi(await connect(options), (client) => client.updateLiveActivity(id, update));
    printResult(options, updated, [describeActivity('Updated', updated)]);
  });
}
