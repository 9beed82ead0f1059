import type { ClientHttp2Session, OutgoingHttpHeaders } from 'node:http2';
import {
  type ApnsSigningKey,
  type FakeApns,
  type FakeApnsOptions,
  createApnsSigningKey,
  startFakeApns,
} from '../../tools/fakes/index.ts';
import { type H2Response, closeAfterTest, h2Request, openSession } from './h2-test-client.ts';
import { apnsProviderToken } from './jwt-signers.ts';

export const BUNDLE = 'com.example.clarion';
export const DEVICE = 'a1'.repeat(32);
export const ALERT = JSON.stringify({ aps: { alert: { title: 'Hello', body: 'World' } } });

export interface ApnsFixture {
  key: ApnsSigningKey;
  apns: FakeApns;
  session: ClientHttp2Session;
  jwt: string;
  /** POST /3/device/<token> with a valid token, topic and push type unless `headers` overrides them. */
  push(token?: string, headers?: OutgoingHttpHeaders, body?: string | Buffer): Promise<H2Response>;
}

/** A fake APNs that knows one key and one app, and a connected client; both closed after the test. */
export async function apnsFixture(options: FakeApnsOptions = {}): Promise<ApnsFixture> {
  const key = createApnsSigningKey();
  const apns = await startFakeApns({ keys: [key], topics: [BUNDLE], ...options });
  closeAfterTest(() => apns.close());
  const session = await openSession(apns.url);
  const nowSeconds = Math.floor((options.clock?.now() ?? Date.now()) / 1000);
  const jwt = await apnsProviderToken(key, { iat: nowSeconds });
  const push = (token = DEVICE, headers: OutgoingHttpHeaders = {}, body: string | Buffer = ALERT) =>
    h2Request(
      session,
      {
        ':path': `/3/device/${token}`,
        authorization: `bearer ${jwt}`,
        'apns-topic': BUNDLE,
        'apns-push-type': 'alert',
        ...headers,
      },
      body,
    );
  return { key, apns, session, jwt, push };
}
