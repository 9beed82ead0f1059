import { Agent, request } from 'undici';
import { ManualClock } from '../../src/domain/clock.ts';
import { generateVapidKeyPair, type VapidKeys } from '../../src/delivery/web-push/vapid-keys.ts';
import { createVapidSigner } from '../../src/delivery/web-push/vapid-token.ts';
import { encryptWebPush } from '../../src/delivery/web-push/web-push-encryption.ts';
import {
  type FakeSubscription,
  type FakeWebPush,
  type WebPushServiceKind,
  startFakeWebPush,
} from '../../tools/fakes/index.ts';

export const VAPID: VapidKeys = { ...generateVapidKeyPair(), subject: 'mailto:ops@example.com', source: 'config' };

export interface WebPushFixture {
  fake: FakeWebPush;
  clock: ManualClock;
  /** POSTs a message the way a correct sender does; `headers` add to or override (undefined removes) the defaults. */
  push(
    subscription: FakeSubscription,
    text: string | Buffer,
    options?: { headers?: Record<string, string | undefined>; path?: string; method?: string },
  ): Promise<PushAnswer>;
  close(): Promise<void>;
}

export interface PushAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The fake push service on a manual clock, and an HTTP client for it (closed by close()). */
export async function webPushFixture(service: WebPushServiceKind = 'generic'): Promise<WebPushFixture> {
  const clock = new ManualClock(Date.now());
  const fake = await startFakeWebPush({ clock, service });
  const agent = new Agent();
  const signer = createVapidSigner(VAPID, clock);
  return {
    fake,
    clock,
    async push(subscription, text, options = {}) {
      const body = Buffer.isBuffer(text) ? text : encryptWebPush(Buffer.from(text), subscription.json.keys);
      const defaults: Record<string, string | undefined> = {
        authorization: await signer.authorization(new URL(subscription.endpoint).origin),
        ttl: '60',
        'content-encoding': 'aes128gcm',
        'content-type': 'application/octet-stream',
      };
      const headers = Object.fromEntries(
        Object.entries({ ...defaults, ...options.headers }).filter(
          (entry): entry is [string, string] => entry[1] !== undefined,
        ),
      );
      const url = options.path ? `${fake.url}${options.path}` : subscription.endpoint;
      const response = await request(url, {
        method: (options.method ?? 'POST') as 'POST',
        headers,
        body,
        dispatcher: agent,
      });
      return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
    },
    async close() {
      await agent.close();
      await fake.close();
    },
  };
}
