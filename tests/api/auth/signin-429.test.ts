import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNIN_MAX_ATTEMPTS_PER_IP, SIGNIN_MAX_FAILURES_PER_EMAIL, SIGNIN_WINDOW_MS } from '../../../src/domain/signin-limits.ts';
import { expectError } from '../../harness/api-expect.ts';
import { randomEmail, randomIp, sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const signin = (email: string, password: string, ip = randomIp()) => sessionCall(t, 'POST', '/api/v1/auth/signin', null, { body: { email, password }, ip });

describe('POST /api/v1/auth/signin → 429 rate_limited', () => {
  it(`locks an email after ${SIGNIN_MAX_FAILURES_PER_EMAIL} failures in 15 minutes, from any address, even for the right password`, async () => {
    const user = await signUp(t);
    for (let i = 0; i < SIGNIN_MAX_FAILURES_PER_EMAIL; i += 1) expectError(await signin(user.email, `wrong ${i}`), 'unauthorized');
    const limited = await signin(user.email, user.password);
    expect(expectError(limited, 'rate_limited')).toMatchObject({ message: expect.stringMatching(/Too many sign-in attempts/), details: { retryAfterSeconds: 900 } });
    expect(limited.headers['retry-after']).toBe('900');
    expect(limited.headers['set-cookie']).toBeUndefined();

    // The wait counts down with the clock, and the lock lifts when the oldest failure leaves the window.
    t.clock.advance(60_000);
    expect((await signin(user.email, user.password)).headers['retry-after']).toBe('840');
    t.clock.advance(SIGNIN_WINDOW_MS - 60_000);
    expect((await signin(user.email, user.password)).statusCode).toBe(200);
  });

  it('forgets an email’s failures after a successful sign-in', async () => {
    const user = await signUp(t);
    for (let i = 0; i < SIGNIN_MAX_FAILURES_PER_EMAIL - 1; i += 1) await signin(user.email, 'wrong');
    expect((await signin(user.email, user.password)).statusCode).toBe(200);
    for (let i = 0; i < SIGNIN_MAX_FAILURES_PER_EMAIL - 1; i += 1) expectError(await signin(user.email, 'wrong'), 'unauthorized');
    expect((await signin(user.email, user.password)).statusCode).toBe(200);
  });

  it(`locks a client address after ${SIGNIN_MAX_ATTEMPTS_PER_IP} failures over any emails, leaving other addresses alone`, async () => {
    const ip = randomIp();
    const user = await signUp(t);
    for (let i = 0; i < SIGNIN_MAX_ATTEMPTS_PER_IP; i += 1) expectError(await signin(randomEmail(), 'guess', ip), 'unauthorized');
    expectError(await signin(user.email, user.password, ip), 'rate_limited');
    expect((await signin(user.email, user.password)).statusCode).toBe(200);
  });
});
