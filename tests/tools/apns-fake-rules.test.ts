import type { OutgoingHttpHeaders } from 'node:http2';
import { describe, expect, it } from 'vitest';
import { ALERT, BUNDLE, DEVICE, apnsFixture } from './apns-fixture.ts';
import { h2Request } from './h2-test-client.ts';

/** Request line, header and payload rules (docs/protocols.md 1.3 table and checklist 6.1), each with its exact answer. */
describe('fake APNs: request rules', () => {
  const cases: Array<{
    name: string;
    path?: string;
    headers?: OutgoingHttpHeaders;
    body?: string;
    status: number;
    reason: string | null;
  }> = [
    { name: 'GET', headers: { ':method': 'GET' }, status: 405, reason: 'MethodNotAllowed' },
    { name: 'no token in the path', path: '/3/device/', status: 400, reason: 'MissingDeviceToken' },
    { name: 'another path', path: '/2/device/abcd', status: 404, reason: 'BadPath' },
    { name: 'a path below the token', path: `/3/device/${DEVICE}/x`, status: 404, reason: 'BadPath' },
    { name: 'a token that is not hex', path: '/3/device/not-hex!', status: 400, reason: 'BadDeviceToken' },
    { name: 'an odd number of hex digits', path: `/3/device/${DEVICE}a`, status: 400, reason: 'BadDeviceToken' },
    { name: 'a long (Live Activity sized) token', path: `/3/device/${'ab'.repeat(80)}`, status: 200, reason: null },
    { name: 'apns-id not a UUID', headers: { 'apns-id': 'not-a-uuid' }, status: 400, reason: 'BadMessageId' },
    { name: 'priority 7', headers: { 'apns-priority': '7' }, status: 400, reason: 'BadPriority' },
    { name: 'priority 1', headers: { 'apns-priority': '1' }, status: 200, reason: null },
    {
      name: 'background with priority 10',
      headers: { 'apns-push-type': 'background', 'apns-priority': '10' },
      status: 400,
      reason: 'BadPriority',
    },
    {
      name: 'background with priority 5',
      headers: { 'apns-push-type': 'background', 'apns-priority': '5' },
      body: '{"aps":{"content-available":1}}',
      status: 200,
      reason: null,
    },
    { name: 'an unknown push type', headers: { 'apns-push-type': 'banner' }, status: 400, reason: 'InvalidPushType' },
    {
      name: 'no push type (allowed outside watchOS)',
      headers: { 'apns-push-type': undefined },
      status: 200,
      reason: null,
    },
    {
      name: 'expiration not an integer',
      headers: { 'apns-expiration': 'tomorrow' },
      status: 400,
      reason: 'BadExpirationDate',
    },
    { name: 'expiration 0', headers: { 'apns-expiration': '0' }, status: 200, reason: null },
    {
      name: 'collapse id of 65 bytes',
      headers: { 'apns-collapse-id': 'x'.repeat(65) },
      status: 400,
      reason: 'BadCollapseId',
    },
    { name: 'collapse id of 64 bytes', headers: { 'apns-collapse-id': 'é'.repeat(32) }, status: 200, reason: null },
    { name: 'no topic', headers: { 'apns-topic': undefined }, status: 400, reason: 'MissingTopic' },
    { name: 'a topic with spaces', headers: { 'apns-topic': 'com example' }, status: 400, reason: 'BadTopic' },
    {
      name: 'a voip push without the .voip topic',
      headers: { 'apns-push-type': 'voip' },
      status: 400,
      reason: 'TopicDisallowed',
    },
    {
      name: 'an alert push to the .voip topic',
      headers: { 'apns-topic': `${BUNDLE}.voip` },
      status: 400,
      reason: 'TopicDisallowed',
    },
    {
      name: 'a Live Activity push to the bundle topic',
      headers: { 'apns-push-type': 'liveactivity' },
      status: 400,
      reason: 'TopicDisallowed',
    },
    {
      name: 'a Live Activity push to <bundle>.push-type.liveactivity',
      headers: {
        'apns-push-type': 'liveactivity',
        'apns-topic': `${BUNDLE}.push-type.liveactivity`,
        'apns-priority': '5',
      },
      body: JSON.stringify({ aps: { timestamp: 1_700_000_000, event: 'update', 'content-state': { score: 1 } } }),
      status: 200,
      reason: null,
    },
    { name: 'an empty body', body: '', status: 400, reason: 'PayloadEmpty' },
    { name: 'a body that is not JSON', body: '{"aps":', status: 400, reason: 'BadPayload' },
    { name: 'a 4097-byte payload', body: payloadOfSize(4097), status: 413, reason: 'PayloadTooLarge' },
    { name: 'a 4096-byte payload', body: payloadOfSize(4096), status: 200, reason: null },
    {
      name: 'a 5120-byte VoIP payload',
      headers: { 'apns-push-type': 'voip', 'apns-topic': `${BUNDLE}.voip` },
      body: payloadOfSize(5120),
      status: 200,
      reason: null,
    },
    {
      name: 'a 5121-byte VoIP payload',
      headers: { 'apns-push-type': 'voip', 'apns-topic': `${BUNDLE}.voip` },
      body: payloadOfSize(5121),
      status: 413,
      reason: 'PayloadTooLarge',
    },
  ];

  it.each(cases)('$name → $status $reason', async ({ path, headers = {}, body = ALERT, status, reason }) => {
    const { push, apns } = await apnsFixture();
    const sent = Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined));
    const dropped = Object.keys(headers).filter((name) => headers[name] === undefined);
    const response = await sendWithout(push, path, sent, dropped, body);

    expect(response.status).toBe(status);
    expect(response.body).toBe(reason === null ? '' : JSON.stringify({ reason }));
    const [record] = await apns.waitForRequests(1);
    expect(record).toMatchObject({ status, reason });
  });

  it('answers 400 DuplicateHeaders for a repeated header', async () => {
    const { session, jwt } = await apnsFixture();
    const response = await h2Request(
      session,
      { ':path': `/3/device/${DEVICE}`, authorization: `bearer ${jwt}`, 'apns-topic': [BUNDLE, BUNDLE] },
      ALERT,
    );
    expect(response.status).toBe(400);
    expect(response.body).toBe('{"reason":"DuplicateHeaders"}');
  });

  it('answers 400 DeviceTokenNotForTopic for a token registered to another app', async () => {
    const { push, apns } = await apnsFixture({ topics: [BUNDLE, 'com.example.other'] });
    apns.setTokenTopic(DEVICE, 'com.example.other');
    const response = await push();
    expect(response.status).toBe(400);
    expect(response.body).toBe('{"reason":"DeviceTokenNotForTopic"}');
    expect((await push(DEVICE, { 'apns-topic': 'com.example.other' })).status).toBe(200);
  });

  it('checks authentication before the headers, like a server that must know who is asking', async () => {
    const { session } = await apnsFixture();
    const response = await h2Request(session, { ':path': `/3/device/${DEVICE}`, 'apns-priority': '7' }, ALERT);
    expect(response.body).toBe('{"reason":"MissingProviderToken"}');
  });
});

/** A JSON payload of exactly `size` bytes. */
function payloadOfSize(size: number): string {
  const skeleton = JSON.stringify({ aps: { alert: '' } });
  return JSON.stringify({ aps: { alert: 'x'.repeat(size - skeleton.length) } });
}

/** The fixture's push with some default headers removed (apns-topic, apns-push-type). */
async function sendWithout(
  push: Awaited<ReturnType<typeof apnsFixture>>['push'],
  path: string | undefined,
  headers: OutgoingHttpHeaders,
  dropped: string[],
  body: string,
) {
  const token = path?.startsWith('/3/device/') ? path.slice('/3/device/'.length) : undefined;
  const pathHeader = path !== undefined && token === undefined ? { ':path': path } : {};
  const removed = Object.fromEntries(dropped.map((name) => [name, undefined]));
  return push(token ?? DEVICE, { ...removed, ...pathHeader, ...headers }, body);
}
