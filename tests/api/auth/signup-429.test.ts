import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNIN_MAX_ATTEMPTS_PER_IP, SIGNIN_WINDOW_MS } from '../../../src/domain/signin-limits.ts';
import { emailHashOf } from '../../../src/http/signin-rate-limit.ts';
import { recordSigninAttempt } from '../../../src/store/signin-attempts-queries.ts';
import { expectError } from '../../harness/api-expect.ts';
import { GOOD_PASSWORD, randomEmail, randomIp, sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/auth/signup → 429 rate_limited', () => {
  it(`allows ${SIGNIN_MAX_ATTEMPTS_PER_IP} sign-ups per client address in 15 minutes, then answers rate_limited with Retry-After`, async () => {
    const ip = randomIp();
    // All but the last two through the store: each sign-up costs a scrypt hash, and only the count matters.
    for (let i = 0; i < SIGNIN_MAX_ATTEMPTS_PER_IP - 2; i += 1) {
      await recordSigninAttempt(t.store.db, {
        kind: 'signup',
        emailHash: emailHashOf(randomEmail()),
        ip,
        now: t.clock.now(),
      });
    }
    await signUp(t, { ip });
    await signUp(t, { ip });
    const email = randomEmail();
    const limited = await sessionCall(t, 'POST', '/api/v1/auth/signup', null, {
      body: { email, password: GOOD_PASSWORD },
      ip,
    });
    expect(expectError(limited, 'rate_limited').details).toEqual({ retryAfterSeconds: SIGNIN_WINDOW_MS / 1000 });
    expect(
      await t.store.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst(),
    ).toBeUndefined();

    // Another address is not affected; the same one may sign up again once the window has passed.
    await signUp(t);
    t.clock.advance(SIGNIN_WINDOW_MS);
    await signUp(t, { ip });
  });
});
