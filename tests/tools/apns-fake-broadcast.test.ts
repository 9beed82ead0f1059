import type { OutgoingHttpHeaders } from 'node:http2';
import { describe, expect, it } from 'vitest';
import { BUNDLE, apnsFixture } from './apns-fixture.ts';
import { h2Request, openSession } from './h2-test-client.ts';

/**
 * The fake APNs' iOS 18 broadcast side (docs/protocols.md 2.5): the channel management API on its own listener, the
 * broadcast endpoint on the push host, and devices whose activities subscribed to a channel by push-to-start.
 */
async function broadcastFixture() {
  const fixture = await apnsFixture();
  const management = await openSession(fixture.apns.managementUrl);
  const auth = { authorization: `bearer ${fixture.jwt}` };
  const manage = (method: string, path: string, headers: OutgoingHttpHeaders = {}, body?: string) =>
    h2Request(management, { ':method': method, ':path': path, ...auth, ...headers }, body ?? '');
  const createChannel = async (policy = 0) => {
    const response = await manage(
      'POST',
      `/1/apps/${BUNDLE}/channels`,
      {},
      JSON.stringify({ 'message-storage-policy': policy, 'push-type': 'LiveActivity' }),
    );
    expect(response.status).toBe(201);
    return String(response.headers['apns-channel-id']);
  };
  /** A valid broadcast unless `headers` overrides a header (null leaves it out). */
  const broadcast = (channelId: string | undefined, body: string, headers: Record<string, string | null> = {}) => {
    const merged: Record<string, string | null> = {
      ':path': `/4/broadcasts/apps/${BUNDLE}`,
      ...auth,
      'apns-push-type': 'liveactivity',
      'apns-topic': `${BUNDLE}.push-type.liveactivity`,
      'apns-priority': '10',
      ...(channelId === undefined ? {} : { 'apns-channel-id': channelId }),
      ...headers,
    };
    return h2Request(
      fixture.session,
      Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== null)) as OutgoingHttpHeaders,
      body,
    );
  };
  return { ...fixture, manage, createChannel, broadcast };
}

const liveActivity = {
  'apns-push-type': 'liveactivity',
  'apns-topic': `${BUNDLE}.push-type.liveactivity`,
  'apns-priority': '10',
};
const startOn = (channelId: string, activityId = 'lva_1') =>
  JSON.stringify({
    aps: {
      timestamp: 1000,
      event: 'start',
      'content-state': { progress: 0.1 },
      'attributes-type': 'ClarionProgressAttributes',
      attributes: { activityId },
      alert: { title: 'Go' },
      'input-push-channel': channelId,
    },
  });
const event = (name: string, timestamp: number, state: unknown) =>
  JSON.stringify({ aps: { timestamp, event: name, 'content-state': state } });

describe('fake APNs: channel management', () => {
  it('creates, reads, lists and deletes channels, echoing apns-request-id', async () => {
    const { manage, createChannel, apns } = await broadcastFixture();
    const first = await createChannel(0);
    const second = await createChannel(1);
    expect(first).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const read = await manage('GET', `/1/apps/${BUNDLE}/channels`, {
      'apns-channel-id': second,
      'apns-request-id': '1f6f1c5e-5a3c-4a6e-9a0e-3f4b1c2d3e4f',
    });
    expect(read.status).toBe(200);
    expect(read.headers['apns-request-id']).toBe('1f6f1c5e-5a3c-4a6e-9a0e-3f4b1c2d3e4f');
    expect(JSON.parse(read.body)).toEqual({ 'message-storage-policy': 1, 'push-type': 'LiveActivity' });
    expect(JSON.parse((await manage('GET', `/1/apps/${BUNDLE}/all-channels`)).body)).toEqual({
      channels: [first, second],
    });
    expect((await manage('DELETE', `/1/apps/${BUNDLE}/channels`, { 'apns-channel-id': first })).status).toBe(204);
    expect(apns.channels.list(BUNDLE).map((channel) => channel.id)).toEqual([second]);
    expect(
      apns.requests.filter((request) => request.kind === 'channels').map((request) => [request.method, request.status]),
    ).toEqual([
      ['POST', 201],
      ['POST', 201],
      ['GET', 200],
      ['GET', 200],
      ['DELETE', 204],
    ]);
  });

  it.each<[string, string, string, OutgoingHttpHeaders, string | undefined, number, string]>([
    ['a delete without a channel id', 'DELETE', 'channels', {}, undefined, 400, 'MissingChannelId'],
    [
      'a channel id that is not base64',
      'GET',
      'channels',
      { 'apns-channel-id': 'not base64!' },
      undefined,
      400,
      'BadChannelId',
    ],
    [
      'an unknown channel',
      'DELETE',
      'channels',
      { 'apns-channel-id': 'dW5rbm93bmNoYW5uZWw=' },
      undefined,
      400,
      'ChannelNotRegistered',
    ],
    [
      'a push type other than LiveActivity',
      'POST',
      'channels',
      {},
      JSON.stringify({ 'message-storage-policy': 0, 'push-type': 'Alert' }),
      400,
      'InvalidPushType',
    ],
    [
      'a storage policy other than 0 or 1',
      'POST',
      'channels',
      {},
      JSON.stringify({ 'message-storage-policy': 2, 'push-type': 'LiveActivity' }),
      400,
      'BadPayload',
    ],
    ['a PUT', 'PUT', 'channels', {}, undefined, 405, 'MethodNotAllowed'],
    ['an unknown path', 'GET', 'channel-list', {}, undefined, 404, 'BadPath'],
  ])('refuses %s', async (_name, method, resource, headers, body, status, reason) => {
    const { manage } = await broadcastFixture();
    const response = await manage(method, `/1/apps/${BUNDLE}/${resource}`, headers, body);
    expect([response.status, JSON.parse(response.body).reason]).toEqual([status, reason]);
  });

  it('refuses a request without a valid provider token, and channels of an app the key may not use', async () => {
    const { apns } = await broadcastFixture();
    const session = await openSession(apns.managementUrl);
    const anonymous = await h2Request(session, { ':method': 'GET', ':path': `/1/apps/${BUNDLE}/all-channels` }, '');
    expect([anonymous.status, JSON.parse(anonymous.body).reason]).toEqual([403, 'MissingProviderToken']);
  });

  it('answers CannotCreateChannelConfig at the per-app limit', async () => {
    const { manage, createChannel, apns } = await broadcastFixture();
    apns.channels.setLimit(2);
    await createChannel();
    await createChannel();
    const third = await manage(
      'POST',
      `/1/apps/${BUNDLE}/channels`,
      {},
      JSON.stringify({ 'message-storage-policy': 0, 'push-type': 'LiveActivity' }),
    );
    expect([third.status, JSON.parse(third.body).reason]).toEqual([400, 'CannotCreateChannelConfig']);
  });
});

describe('fake APNs: broadcast', () => {
  it('applies one broadcast to every activity subscribed to the channel, with the device rules', async () => {
    const { push, createChannel, broadcast, apns } = await broadcastFixture();
    const channelId = await createChannel();
    const minted: string[] = [];
    apns.liveActivities.onUpdateToken((activity) => minted.push(activity.updateToken));
    expect((await push('c3'.repeat(40), liveActivity, startOn(channelId))).status).toBe(200);
    expect((await push('d4'.repeat(40), liveActivity, startOn(channelId))).status).toBe(200);
    expect(minted).toEqual([]); // no update token for a channel activity

    const response = await broadcast(channelId, event('update', 1001, { progress: 0.5 }), {
      'apns-request-id': '0a1b2c3d-0000-4000-8000-000000000001',
    });
    expect(response.status).toBe(200);
    expect(response.headers['apns-request-id']).toBe('0a1b2c3d-0000-4000-8000-000000000001');
    await broadcast(channelId, event('update', 999, { progress: 0.2 })); // older: ignored by the devices
    await broadcast(channelId, event('end', 1002, { progress: 1 }));
    const activities = apns.liveActivities.onChannel(channelId);
    expect(activities).toHaveLength(2);
    for (const activity of activities) {
      expect(activity).toMatchObject({ state: 'ended', contentState: { progress: 1 }, updateToken: '' });
      expect(activity.events.map((item) => [item.event, item.applied])).toEqual([
        ['start', true],
        ['update', true],
        ['update', false],
        ['end', true],
      ]);
    }
    expect(apns.requests.filter((request) => request.kind === 'broadcast').map((request) => request.channelId)).toEqual(
      [channelId, channelId, channelId],
    );
  });

  it.each<
    [string, (channelId: string) => [string | undefined, Record<string, string | null>, string?], number, string]
  >([
    ['no apns-channel-id', () => [undefined, {}], 400, 'MissingChannelId'],
    ['a malformed channel id', () => ['###', {}], 400, 'BadChannelId'],
    ['an unknown channel', () => ['dW5rbm93bmNoYW5uZWw=', {}], 400, 'ChannelNotRegistered'],
    ['no push type', (id) => [id, { 'apns-push-type': null }], 400, 'MissingPushType'],
    ['an alert push type', (id) => [id, { 'apns-push-type': 'alert' }], 400, 'InvalidPushType'],
    [
      'the topic of another app',
      (id) => [id, { 'apns-topic': 'com.other.app.push-type.liveactivity' }],
      400,
      'TopicDisallowed',
    ],
    ['a topic without the liveactivity suffix', (id) => [id, { 'apns-topic': BUNDLE }], 400, 'TopicDisallowed'],
    [
      'a payload over 5,120 bytes',
      (id) => [
        id,
        {},
        JSON.stringify({ aps: { event: 'update', timestamp: 1, 'content-state': { x: 'x'.repeat(5200) } } }),
      ],
      413,
      'PayloadTooLarge',
    ],
    [
      'a provider token of no known key',
      (id) => [id, { authorization: 'bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IlgifQ.e30.sig' }],
      403,
      'InvalidProviderToken',
    ],
  ])('refuses a broadcast with %s', async (_name, make, status, reason) => {
    const { createChannel, broadcast } = await broadcastFixture();
    const channelId = await createChannel();
    const [id, headers, body] = make(channelId);
    const response = await broadcast(id, body ?? event('update', 1001, {}), headers);
    expect([response.status, JSON.parse(response.body).reason]).toEqual([status, reason]);
  });

  it('accepts a broadcast without apns-topic (whether APNs requires it is open)', async () => {
    const { createChannel, broadcast } = await broadcastFixture();
    const channelId = await createChannel();
    expect((await broadcast(channelId, event('update', 1001, {}), { 'apns-topic': null })).status).toBe(200);
  });
});
