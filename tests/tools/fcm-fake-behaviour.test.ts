import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { REGISTRATION_TOKEN, fcmFixture, tokenMessage } from './fcm-fixture.ts';
import { postForm } from './h2-test-client.ts';

const FCM_ERROR = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const OTHER_TOKEN = 'other-device:APA91bOtherToken';

describe('fake FCM: configured outcomes', () => {
  it('answers UNREGISTERED exactly as docs/protocols.md 3.4 shows it', async () => {
    const { send, fcm } = await fcmFixture();
    fcm.setTokenOutcome(REGISTRATION_TOKEN, { errorCode: 'UNREGISTERED' });
    const response = await send(tokenMessage());
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toEqual({
      error: {
        code: 404,
        message: 'Requested entity was not found.',
        status: 'NOT_FOUND',
        details: [{ '@type': FCM_ERROR, errorCode: 'UNREGISTERED' }],
      },
    });
    expect(fcm.requests[0]).toMatchObject({ status: 404, errorCode: 'UNREGISTERED', injected: true });
    expect((await send({ message: { token: OTHER_TOKEN } })).status).toBe(200);
  });

  it.each([
    { errorCode: 'INVALID_ARGUMENT', httpStatus: 400, status: 'INVALID_ARGUMENT' },
    { errorCode: 'SENDER_ID_MISMATCH', httpStatus: 403, status: 'PERMISSION_DENIED' },
    { errorCode: 'THIRD_PARTY_AUTH_ERROR', httpStatus: 401, status: 'UNAUTHENTICATED' },
    { errorCode: 'UNAVAILABLE', httpStatus: 503, status: 'UNAVAILABLE' },
    { errorCode: 'INTERNAL', httpStatus: 500, status: 'INTERNAL' },
  ] as const)('answers $errorCode with $httpStatus $status', async ({ errorCode, httpStatus, status }) => {
    const { send, fcm } = await fcmFixture();
    fcm.setTokenOutcome(REGISTRATION_TOKEN, { errorCode });
    const response = await send(tokenMessage());
    expect(response.status).toBe(httpStatus);
    expect(JSON.parse(response.body).error).toMatchObject({
      code: httpStatus,
      status,
      details: [{ '@type': FCM_ERROR, errorCode }],
    });
  });

  it('fails the next sends with 429 QUOTA_EXCEEDED and Retry-After, then succeeds', async () => {
    const { send, fcm } = await fcmFixture();
    fcm.failNext(2, { errorCode: 'QUOTA_EXCEEDED', retryAfterSeconds: 60 });
    for (let i = 0; i < 2; i++) {
      const response = await send(tokenMessage());
      expect(response.status).toBe(429);
      expect(response.headers['retry-after']).toBe('60');
      expect(JSON.parse(response.body).error).toMatchObject({
        status: 'RESOURCE_EXHAUSTED',
        details: [{ errorCode: 'QUOTA_EXCEEDED' }],
      });
    }
    expect((await send(tokenMessage())).status).toBe(200);
  });

  it('fails a burst with 503 UNAVAILABLE whatever the target, but a malformed message still gets its own 400', async () => {
    const { send, fcm } = await fcmFixture();
    fcm.failNext(1, { errorCode: 'UNAVAILABLE', retryAfterSeconds: 10 });
    expect((await send(tokenMessage({ data: { n: 1 } }))).status).toBe(400);
    const unavailable = await send({ message: { topic: 'news' } });
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers['retry-after']).toBe('10');
  });

  it('adds latency to sends', async () => {
    const { send, fcm } = await fcmFixture();
    expect((await send(tokenMessage())).status).toBe(200); // fetch the access token first
    fcm.setLatency((request) => (request.endpoint === 'send' ? 120 : 0));
    const started = performance.now();
    expect((await send(tokenMessage())).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('records token requests and sends with the connection they came on', async () => {
    const { send, fcm, account } = await fcmFixture();
    await send(tokenMessage());
    await send(tokenMessage());
    const sends = await fcm.waitForRequests(2);
    expect(new Set(sends.map((request) => request.connectionId)).size).toBe(1);
    expect(fcm.tokenRequests).toHaveLength(1);
    expect(fcm.tokenRequests[0]?.httpVersion).toBe('1.1');
    expect(fcm.tokenRequests[0]?.connectionId).not.toBe(sends[0]?.connectionId);
    expect(fcm.tokenRequests[0]?.claims?.iss).toBe(account.json.client_email);
    fcm.reset();
    expect(fcm.requests).toHaveLength(0);
    expect(fcm.tokenRequests).toHaveLength(0);
  });

  it('sends GOAWAY on open HTTP/2 connections', async () => {
    const { send, fcm, session } = await fcmFixture();
    await send(tokenMessage());
    const goaway = new Promise<number>((resolve) => session.once('goaway', (errorCode) => resolve(errorCode)));
    expect(fcm.goAway()).toBe(1);
    expect(await goaway).toBe(0);
  });

  it('rejects an unknown errorCode when configured, not at request time', async () => {
    const { fcm } = await fcmFixture();
    expect(() => fcm.failNext(1, { errorCode: 'NOPE' as never })).toThrow(/unknown FCM errorCode/);
    const response = await postForm(`${fcm.url}/token`, { grant_type: 'nope' });
    expect(response.status).toBe(400);
  });
});
