import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.ts';
import { PROJECT, REGISTRATION_TOKEN, fcmFixture, tokenMessage } from './fcm-fixture.ts';
import { h2Request } from './h2-test-client.ts';

const FCM_ERROR = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

describe('fake FCM: messages:send (docs/protocols.md 3.2–3.4, 6.2)', () => {
  it('answers 200 {"name": "projects/<p>/messages/<id>"} and records the message', async () => {
    const { send, fcm, account } = await fcmFixture();
    const message = tokenMessage({
      data: { orderId: '42' },
      android: { priority: 'high', ttl: '3600s', collapse_key: 'orders' },
    });
    const response = await send(message);

    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({
      name: expect.stringMatching(new RegExp(`^projects/${PROJECT}/messages/0:\\d+%[0-9a-f]{16}$`)),
    });
    const [record] = await fcm.waitForRequests(1);
    expect(record).toMatchObject({
      httpVersion: '2.0',
      projectId: PROJECT,
      clientEmail: account.json.client_email,
      target: { kind: 'token', value: REGISTRATION_TOKEN },
      message: message.message,
      validateOnly: false,
      status: 200,
      errorCode: null,
      name: JSON.parse(response.body).name,
    });
  });

  it('validate_only checks the message and answers the fixed dry-run id', async () => {
    const { send, fcm } = await fcmFixture();
    const response = await send({ ...tokenMessage(), validate_only: true });
    expect(JSON.parse(response.body)).toEqual({ name: `projects/${PROJECT}/messages/fake_message_id` });
    expect(fcm.requests[0]?.validateOnly).toBe(true);
    expect((await send({ ...tokenMessage({ data: { n: 1 } }), validate_only: true })).status).toBe(400);
  });

  it('answers 401 UNAUTHENTICATED without a Bearer token, or with one it never issued', async () => {
    const { send } = await fcmFixture();
    const missing = await send(tokenMessage(), { accessToken: null });
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body)).toEqual({
      error: {
        code: 401,
        message: expect.stringMatching(/^Request is missing required authentication credential/),
        status: 'UNAUTHENTICATED',
        details: [
          expect.objectContaining({
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'CREDENTIALS_MISSING',
          }),
        ],
      },
    });
    const forged = await send(tokenMessage(), { accessToken: 'ya29.forged' });
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.body).error.message).toMatch(/^Request had invalid authentication credentials/);
  });

  it('answers 401 for an expired access token', async () => {
    const clock = new ManualClock();
    const { send } = await fcmFixture({ clock });
    expect((await send(tokenMessage())).status).toBe(200);
    clock.advance(3600_000);
    const response = await send(tokenMessage());
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body).error.details[0].reason).toBe('ACCESS_TOKEN_EXPIRED');
  });

  it('answers 403 PERMISSION_DENIED when the token belongs to another project', async () => {
    const { send } = await fcmFixture();
    const response = await send(tokenMessage(), { project: 'someone-elses-project' });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body).error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
  });

  it('answers 400 INVALID_ARGUMENT with a BadRequest fieldViolation for a non-string data value', async () => {
    const { send, fcm } = await fcmFixture();
    const response = await send(tokenMessage({ data: { orderId: '42', count: 12 } }));
    expect(response.status).toBe(400);
    const description = "Invalid value at 'message.data[1].value' (TYPE_STRING), 12";
    expect(JSON.parse(response.body)).toEqual({
      error: {
        code: 400,
        message: description,
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': BAD_REQUEST, fieldViolations: [{ field: 'message.data[1].value', description }] }],
      },
    });
    expect((await fcm.waitForRequests(1))[0]).toMatchObject({ status: 400, errorCode: 'INVALID_ARGUMENT' });
  });

  const invalid: Array<{ name: string; body: unknown; message: string | RegExp }> = [
    {
      name: 'no target',
      body: { message: { notification: { title: 'x' } } },
      message: 'Recipient of the message is not set.',
    },
    { name: 'two targets', body: tokenMessage({ topic: 'news' }), message: /oneof field 'target' is already set/ },
    {
      name: 'a malformed registration token',
      body: { message: { token: 'not a token!' } },
      message: 'The registration token is not a valid FCM registration token',
    },
    { name: 'a legacy /topics/ prefix', body: { message: { topic: '/topics/news' } }, message: 'Invalid topic name' },
    {
      name: 'a reserved data key',
      body: tokenMessage({ data: { from: 'me' } }),
      message: 'Invalid data payload key: from',
    },
    {
      name: 'a reserved google. data key',
      body: tokenMessage({ data: { 'google.c.a.e': '1' } }),
      message: 'Invalid data payload key: google.c.a.e',
    },
    {
      name: 'android.ttl without "s"',
      body: tokenMessage({ android: { ttl: '3600' } }),
      message: /^Invalid value at 'message.android.ttl' \(type.googleapis.com\/google.protobuf.Duration\)/,
    },
    {
      name: 'android.ttl over 4 weeks',
      body: tokenMessage({ android: { ttl: '2419201s' } }),
      message: /^TTL exceeds the maximum/,
    },
    {
      name: 'an unknown android.priority',
      body: tokenMessage({ android: { priority: 'urgent' } }),
      message: /^Invalid value at 'message.android.priority'/,
    },
    {
      name: 'an unknown message field',
      body: tokenMessage({ priority: 'high' }),
      message: 'Invalid JSON payload received. Unknown name "priority" at \'message\': Cannot find field.',
    },
    { name: 'a body that is not JSON', body: undefined, message: /^Invalid JSON payload received\./ },
    {
      name: 'a 4097-byte payload',
      body: tokenMessage({ notification: undefined, data: { k: 'x'.repeat(4096) } }),
      message: 'Message is too big',
    },
    {
      name: 'a 2049-byte topic payload',
      body: { message: { topic: 'news', data: { k: 'x'.repeat(2048) } } },
      message: 'Message is too big',
    },
  ];

  it.each(invalid)('answers 400 INVALID_ARGUMENT for $name', async ({ body, message }) => {
    const { send } = await fcmFixture();
    const response = await send(body);
    expect(response.status).toBe(400);
    const error = JSON.parse(response.body).error;
    expect(error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(error.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    expect(
      error.details.some(
        (detail: { '@type': string }) => detail['@type'] === FCM_ERROR || detail['@type'] === BAD_REQUEST,
      ),
    ).toBe(true);
  });

  it('accepts payloads at the limits: 4096 bytes to a token, 2048 to a topic', async () => {
    const { send } = await fcmFixture();
    expect((await send({ message: { token: REGISTRATION_TOKEN, data: { k: 'x'.repeat(4095) } } })).status).toBe(200);
    expect((await send({ message: { topic: 'news', data: { k: 'x'.repeat(2047) } } })).status).toBe(200);
    expect((await send({ message: { condition: "'news' in topics", data: { k: 'v' } } })).status).toBe(200);
  });

  it('answers 404 for another path', async () => {
    const { session } = await fcmFixture();
    const response = await h2Request(session, { ':path': `/v1/projects/${PROJECT}/messages:batchSend` }, '{}');
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body).error.status).toBe('NOT_FOUND');
  });

  it("answers 429 RESOURCE_EXHAUSTED once the project's messages of the last minute reach its quota, counting 4xx but not 429", async () => {
    const clock = new ManualClock();
    const { send } = await fcmFixture({ clock, messagesPerMinutePerProject: 3 });
    expect((await send(tokenMessage())).status).toBe(200);
    expect((await send(tokenMessage({ data: { n: 1 } }))).status).toBe(400);
    clock.advance(30_000);
    expect((await send(tokenMessage())).status).toBe(200);
    const refused = await send(tokenMessage());
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error).toMatchObject({
      status: 'RESOURCE_EXHAUSTED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'RATE_LIMIT_EXCEEDED',
          metadata: { quota_limit: 'SendsPerMinutePerProject', quota_unit: '1/min/{project}' },
        },
      ],
    });
    expect((await send(tokenMessage())).status).toBe(429);
    // The first two messages leave the minute; the 429s never counted.
    clock.advance(30_000);
    expect((await send(tokenMessage())).status).toBe(200);
    expect((await send(tokenMessage())).status).toBe(200);
    expect((await send(tokenMessage())).status).toBe(429);
  });
});
