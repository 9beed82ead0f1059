import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectValidation } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { progressActivity } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const DAY = 24 * 3600 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('POST /api/v1/live-activities with sendAt → 400 validation_failed', () => {
  it.each([
    ['in the past', () => iso(t.clock.now() - 1000), 'must be in the future'],
    ['now', () => iso(t.clock.now()), 'must be in the future'],
    ['more than 365 days ahead', () => iso(t.clock.now() + 365 * DAY + 1000), 'at most 365 days ahead'],
    ['without an offset', () => '2031-05-01T09:00:00', 'with offset'],
  ])('refuses a sendAt %s, and stores and charges nothing', async (_name, sendAt, message) => {
    const account = await t.newAccount({ channels: ['orders'] });
    const before = await accountState(t, account.id);
    const response = await post(t.app, '/api/v1/live-activities', account.secretKey, {
      ...progressActivity('orders'),
      sendAt: sendAt(),
    });
    const [problem] = expectValidation(response, ['sendAt']);
    expect(problem!.message).toContain(message);
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('refuses a sendAt that is not a time at all', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const response = await post(t.app, '/api/v1/live-activities', account.secretKey, {
      ...progressActivity('orders'),
      sendAt: 'tomorrow morning',
    });
    expectValidation(response, ['sendAt']);
  });

  it('refuses a staleAt before the scheduled start: the content would be stale when it appears', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const before = await accountState(t, account.id);
    const response = await post(t.app, '/api/v1/live-activities', account.secretKey, {
      ...progressActivity('orders'),
      sendAt: iso(t.clock.now() + 3600_000),
      staleAt: iso(t.clock.now() + 60_000),
    });
    expectValidation(response, ['staleAt']);
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('refuses sendAt on a stream call that updates the stream’s scheduled activity', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const path = '/api/v1/live-activities/streams/order-9';
    const sendAt = iso(t.clock.now() + 3600_000);
    expect((await post(t.app, path, account.secretKey, { ...progressActivity('orders'), sendAt })).statusCode).toBe(
      201,
    );
    const before = await accountState(t, account.id);
    const [problem] = expectValidation(
      await post(t.app, path, account.secretKey, { ...progressActivity('orders'), sendAt }),
      ['sendAt'],
    );
    expect(problem!.message).toContain('scheduled already');
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
