import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import type { FakesProcess } from './fakes-process.ts';

/**
 * `count` browser subscriptions at the fake Web Push service (tools/fakes/web-push/), made as a page makes them:
 * `POST <url>/subscriptions` with the VAPID public key Clarion signs with, answered with the PushSubscription JSON the
 * page would register. Over HTTPS with the fakes' CA, `concurrency` requests at a time. The fake keeps each
 * subscription's keys and decrypts every push in its own process, so that work never counts as Clarion's.
 */
export async function createWebSubscriptions(
  fakes: Pick<FakesProcess, 'env' | 'webPushUrl'>,
  applicationServerKey: string,
  count: number,
  concurrency = 32,
): Promise<unknown[]> {
  const url = fakes.webPushUrl;
  const caPath = fakes.env.NODE_EXTRA_CA_CERTS;
  if (!url || !caPath) throw new Error('the fakes printed no Web Push service address or NODE_EXTRA_CA_CERTS');
  const dispatcher = new Agent({ connect: { ca: readFileSync(caPath, 'utf8') } });
  const subscriptions: unknown[] = new Array(count);
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < count; index = next++) {
      const response = await request(`${url}/subscriptions`, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ applicationServerKey }),
      });
      if (response.statusCode !== 200 && response.statusCode !== 201)
        throw new Error(`the fake Web Push service answered ${response.statusCode} to a subscription`);
      subscriptions[index] = await response.body.json();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  } finally {
    await dispatcher.close();
  }
  return subscriptions;
}
