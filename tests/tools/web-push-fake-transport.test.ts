import { connect as tlsConnect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { startFakeWebPush, type FakeWebPush } from '../../tools/fakes/index.ts';
import { closeAfterTest, fakeCa, h2Request, openSession, waitForRemoteMaxStreams } from './h2-test-client.ts';

/** The fake push service's transport: HTTP/2 by ALPN with HTTP/1.1 beside it, or HTTP/1.1 alone. */
async function fakeService(options: { http2?: boolean; maxConcurrentStreams?: number } = {}): Promise<FakeWebPush> {
  const fake = await startFakeWebPush(options);
  closeAfterTest(() => fake.close());
  return fake;
}

/** The protocol the service picks by ALPN for a client that offers `offered`. */
function negotiated(fake: FakeWebPush, offered: string[]): Promise<string | false> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: fake.port, ca: fakeCa, ALPNProtocols: offered }, () => {
      resolve(socket.alpnProtocol ?? false);
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

describe('fake Web Push service: transport', () => {
  it('picks h2 for a client that offers it and http/1.1 for one that does not', async () => {
    const fake = await fakeService();
    expect(await negotiated(fake, ['h2', 'http/1.1'])).toBe('h2');
    expect(await negotiated(fake, ['http/1.1'])).toBe('http/1.1');
  });

  it('records the protocol and connection of each request, and advertises 100 streams unless told otherwise', async () => {
    const fake = await fakeService();
    const session = await openSession(fake.url);
    await waitForRemoteMaxStreams(session, 100);
    const subscription = fake.subscribe();
    const path = new URL(subscription.endpoint).pathname;
    await h2Request(session, { ':method': 'GET', ':path': path });
    await h2Request(session, { ':method': 'GET', ':path': path });
    const records = fake.messages.filter((message) => message.subscriptionId === subscription.id);
    expect(records.map((record) => [record.status, record.httpVersion])).toEqual([
      [405, '2.0'],
      [405, '2.0'],
    ]);
    expect(new Set(records.map((record) => record.connectionId)).size).toBe(1);

    const fewer = await fakeService({ maxConcurrentStreams: 8 });
    await waitForRemoteMaxStreams(await openSession(fewer.url), 8);
  });

  it('offers only http/1.1 when it stands for a service without HTTP/2', async () => {
    const fake = await fakeService({ http2: false });
    expect(await negotiated(fake, ['h2', 'http/1.1'])).toBe('http/1.1');
  });
});
