import { randomBytes } from 'node:crypto';
import type { ClarionApp } from '../../src/http/app-types.ts';
import { post } from './requests.ts';

/** Device tokens of the right shape for each platform, new on every call. */
export const tokens = {
  ios: () => randomBytes(32).toString('hex'),
  android: () => `fcm-${randomBytes(24).toString('base64url')}`,
  web: () => ({
    endpoint: `https://push.example.net/send/${randomBytes(8).toString('hex')}`,
    keys: {
      p256dh: Buffer.concat([Buffer.from([4]), randomBytes(64)]).toString('base64url'),
      auth: randomBytes(16).toString('base64url'),
    },
  }),
};

export const progressActivity = (channelCode: string) => ({
  channelCode,
  template: 'progress',
  fields: { title: 'Order #42', progress: 0.45, status: 'Packing' },
  alert: { title: 'Your order', body: 'is being packed' },
});

/** Registers a subscriber through the API and returns its id. */
export async function subscribe(
  app: ClarionApp,
  key: string,
  channelCode: string,
  platform: 'ios' | 'android' | 'web' = 'android',
  extra: Record<string, unknown> = {},
): Promise<string> {
  const response = await post(app, '/api/v1/subscribers', key, {
    channelCode,
    platform,
    token: tokens[platform](),
    ...extra,
  });
  if (response.statusCode !== 201)
    throw new Error(`subscribe failed: ${response.statusCode} ${JSON.stringify(response.body)}`);
  return response.body.data.id;
}

/**
 * Registers a subscriber through the API and returns its id with the token it registered: what a publishable key
 * sends as proof to change, unsubscribe or report Live Activity tokens for it (docs/api.md, "Subscribers").
 */
export async function subscribeDevice<P extends keyof typeof tokens = 'android'>(
  app: ClarionApp,
  key: string,
  channelCode: string,
  platform: P = 'android' as P,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; token: ReturnType<(typeof tokens)[P]> }> {
  const token = tokens[platform]() as ReturnType<(typeof tokens)[P]>;
  const response = await post(app, '/api/v1/subscribers', key, { channelCode, platform, token, ...extra });
  if (response.statusCode !== 201)
    throw new Error(`subscribe failed: ${response.statusCode} ${JSON.stringify(response.body)}`);
  return { id: response.body.data.id as string, token };
}

/** Sends a notification through the API and returns its id. */
export async function send(
  app: ClarionApp,
  key: string,
  channelCode: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const response = await post(app, '/api/v1/notifications', key, { channelCode, title: 'Hello', ...extra });
  if (response.statusCode !== 201)
    throw new Error(`send failed: ${response.statusCode} ${JSON.stringify(response.body)}`);
  return response.body.data.id;
}
