import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SIGNIN_FREE_FAILURES_PER_PAIR,
  SIGNIN_MAX_ATTEMPTS_PER_IP,
  SIGNIN_MAX_DELAY_MS,
  SIGNIN_PAIR_WINDOW_MS,
  SIGNIN_WINDOW_MS,
} from '../../../src/domain/signin-limits.ts';
import { emailHashOf } from '../../../src/http/signin-rate-limit.ts';
import { recordSigninAttempt } from '../../../src/store/signin-attempts-queries.ts';
import { expectError } from '../../harness/api-expect.ts';
import { randomEmail, randomIp, sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const signin = (email: string, password: string, ip = randomIp()) =>
  sessionCall(t, 'POST', '/api/v1/auth/signin', null, { body: { email, password }, ip });

/** Fails `count` times from `ip`, each as soon as the throttle allows (advancing the clock by the Retry-After it gives). */
async function failFrom(email: string, ip: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    let response = await signin(email, `wrong ${i}`, ip);
    if (response.statusCode === 429) {
      t.clock.advance(Number(response.headers['retry-after']) * 1000);
      response = await signin(email, `wrong ${i}`, ip);
    }
    expectError(response, 'unauthorized');
  }
}

describe('POST /api/v1/auth/signin → 429 rate_limited', () => {
  it('never locks the owner out: while one address hammers the account, the owner signs in from another at once', async () => {
    const user = await signUp(t);
    const attacker = randomIp();
    await failFrom(user.email, attacker, SIGNIN_FREE_FAILURES_PER_PAIR + 10);
    expectError(await signin(user.email, 'another guess', attacker), 'rate_limited');
    expect((await signin(user.email, user.password, randomIp())).statusCode).toBe(200);
    // …and the owner's success does not lift the attacker's throttle.
    expectError(await signin(user.email, 'yet another guess', attacker), 'rate_limited');
  });

  it(`gives one address ${SIGNIN_FREE_FAILURES_PER_PAIR} failures for an email, then waits that double each time, up to 15 minutes, even for the right password`, async () => {
    const user = await signUp(t);
    const ip = randomIp();
    for (let i = 0; i < SIGNIN_FREE_FAILURES_PER_PAIR; i += 1)
      expectError(await signin(user.email, `wrong ${i}`, ip), 'unauthorized');

    const waits: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      const limited = await signin(user.email, user.password, ip);
      const error = expectError(limited, 'rate_limited');
      expect(error.message).toMatch(/Too many sign-in attempts; try again in/);
      expect(limited.headers['set-cookie']).toBeUndefined();
      const wait = Number(limited.headers['retry-after']);
      expect(error.details).toEqual({ retryAfterSeconds: wait });
      waits.push(wait);
      t.clock.advance(wait * 1000);
      expectError(await signin(user.email, 'wrong again', ip), 'unauthorized');
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
    expect(SIGNIN_MAX_DELAY_MS).toBe(900_000);

    // The wait counts down with the clock; once it has passed, the right password signs in and forgets the failures.
    const limited = await signin(user.email, user.password, ip);
    expect(limited.headers['retry-after']).toBe('900');
    t.clock.advance(60_000);
    expect((await signin(user.email, user.password, ip)).headers['retry-after']).toBe('840');
    t.clock.advance(840_000);
    expect((await signin(user.email, user.password, ip)).statusCode).toBe(200);
    for (let i = 0; i < SIGNIN_FREE_FAILURES_PER_PAIR; i += 1)
      expectError(await signin(user.email, 'wrong', ip), 'unauthorized');
  });

  it('forgets a pair’s failures after a day', async () => {
    const user = await signUp(t);
    const ip = randomIp();
    await failFrom(user.email, ip, SIGNIN_FREE_FAILURES_PER_PAIR + 3);
    expectError(await signin(user.email, user.password, ip), 'rate_limited');
    t.clock.advance(SIGNIN_PAIR_WINDOW_MS);
    expect((await signin(user.email, user.password, ip)).statusCode).toBe(200);
  });

  it('lets many people behind one address (a NAT) get their passwords wrong: more failures than the old limit of 20, then a sign-in', async () => {
    const ip = randomIp();
    const user = await signUp(t);
    for (let i = 0; i < 25; i += 1) expectError(await signin(randomEmail(), 'typo', ip), 'unauthorized');
    expect((await signin(user.email, user.password, ip)).statusCode).toBe(200);
  });

  it(`caps one address at ${SIGNIN_MAX_ATTEMPTS_PER_IP} failures and sign-ups in 15 minutes over any emails, leaving other addresses alone`, async () => {
    const ip = randomIp();
    const user = await signUp(t);
    // All but the last two through the store: each API failure costs a scrypt check, and only the count matters.
    for (let i = 0; i < SIGNIN_MAX_ATTEMPTS_PER_IP - 2; i += 1) {
      await recordSigninAttempt(t.store.db, {
        kind: 'signin_failure',
        emailHash: emailHashOf(randomEmail()),
        ip,
        now: t.clock.now(),
      });
    }
    expectError(await signin(randomEmail(), 'guess', ip), 'unauthorized');
    expectError(await signin(randomEmail(), 'guess', ip), 'unauthorized');
    const limited = await signin(user.email, user.password, ip);
    expect(expectError(limited, 'rate_limited').details).toEqual({ retryAfterSeconds: SIGNIN_WINDOW_MS / 1000 });
    expect((await signin(user.email, user.password)).statusCode).toBe(200);
    t.clock.advance(SIGNIN_WINDOW_MS);
    expect((await signin(user.email, user.password, ip)).statusCode).toBe(200);
  });
});
