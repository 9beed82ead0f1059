import type { Command } from 'commander';
import { callApi, connect, parseJsonObject, withApiOptions, type ApiOptions } from '../api-client.ts';
import { templateNames } from '../../domain/live-activities/live-activity-templates.ts';
import { printResult } from '../cli-output.ts';
import { alertFrom, describeActivity, type AlertFlags } from './live-activity-flags.ts';

interface StartOptions extends ApiOptions, AlertFlags {
  channel: string;
  template: string;
  fields: string;
  staleAt?: string;
  sendAt?: string;
}

/** `clarion live start`: POST /api/v1/live-activities (docs/live-activities.md). */
export function addLiveStart(live: Command): void {
  withApiOptions(
    live
      .command('start')
      .description('start a Live Activity on every subscriber of a channel, over HTTP with an API key')
      .requiredOption('--channel <code>', 'the channel code')
      .requiredOption('--template <name>', `one of ${templateNames.join(', ')}`)
      .requiredOption(
        '--fields <json>',
        `the template's fields as a JSON object, e.g. '{"title": "Order #42", "progress": 0.1}'`,
      )
      .option('--alert-title <text>', 'alert shown with the start (default: made from the fields)')
      .option('--alert-body <text>', 'alert text')
      .option('--stale-at <time>', 'ISO 8601 time when the content goes stale')
      .option('--send-at <time>', 'ISO 8601 time to start it then instead of now (status scheduled until then)'),
  ).action(async (options: StartOptions) => {
    const activity = {
      channelCode: options.channel,
      template: options.template,
      fields: parseJsonObject('--fields', options.fields),
      ...alertFrom(options),
      ...(options.staleAt !== undefined ? { staleAt: options.staleAt } : {}),
      ...(options.sendAt !== undefined ? { sendAt: options.sendAt } : {}),
    }; // the template name and fields are checked by the server, which names what is wrong
    const started = await callApi(await connect(options), (client) => client.startLiveActivity(activity));
    printResult(options, started, [
      describeActivity(started.status === 'scheduled' ? 'Scheduled' : 'Started', started),
    ]);
  });
}
