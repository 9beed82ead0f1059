import { randomBytes } from 'node:crypto';
import type { ClarionApp } from '../../src/http/app-types.ts';
import { post } from './requests.ts';
import { progressActivity } from './sample-requests.ts';

/** Starts a Live Activity through the API (the progress sample unless `body` says otherwise) and returns its id. */
export async function startActivity(
  app: ClarionApp,
  key: string,
  channelCode: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const response = await post(app, '/api/v1/live-activities', key, { ...progressActivity(channelCode), ...body });
  if (response.statusCode !== 201)
    throw new Error(`start failed: ${response.statusCode} ${JSON.stringify(response.body)}`);
  return response.body.data.id;
}

/** A per-activity update token of the length iOS mints (longer than a device token). */
export function activityToken(): string {
  return randomBytes(80).toString('hex');
}

/** The Live Activity lifecycle routes with an id, for tests that go through each. */
export const activityPath = (id: string, action?: 'update' | 'end' | 'cancel' | 'tokens' | 'failures') =>
  `/api/v1/live-activities/${id}${action ? `/${action}` : ''}`;
