import type { TestApp } from '../../harness/test-app.ts';
import { DISPATCH_WIDGET_RELOAD } from '../../../src/delivery/widgets/widget-jobs.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { post } from '../../harness/requests.ts';

/** Registers an iOS subscriber with a widget push token; returns its id and the widget token. */
export async function subscribeWithWidget(t: TestApp, key: string, channelCode: string) {
  const widgetPushToken = tokens.ios();
  const response = await post(t.app, '/api/v1/subscribers', key, {
    channelCode,
    platform: 'ios',
    token: tokens.ios(),
    widgetPushToken,
  });
  if (response.statusCode !== 201) throw new Error(`subscribe failed: ${JSON.stringify(response.body)}`);
  return { id: response.body.data.id as string, widgetPushToken };
}

/** The widget reload dispatch jobs of an account. */
export async function widgetDispatchJobs(t: TestApp, accountId: string) {
  const jobs = await t.store.db
    .selectFrom('jobs')
    .select('payload')
    .where('kind', '=', DISPATCH_WIDGET_RELOAD)
    .execute();
  return jobs
    .map((job) => JSON.parse(job.payload) as { reloadId: string; accountId: string; channelId: string })
    .filter((payload) => payload.accountId === accountId);
}

/** The widget push tokens stored for these subscribers, by id. */
export async function widgetTokens(t: TestApp, ids: string[]): Promise<Record<string, string>> {
  if (ids.length === 0) return {};
  const rows = await t.store.db
    .selectFrom('widget_push_tokens')
    .select(['subscriber_id', 'token'])
    .where('subscriber_id', 'in', ids)
    .execute();
  return Object.fromEntries(rows.map((row) => [row.subscriber_id, row.token]));
}
