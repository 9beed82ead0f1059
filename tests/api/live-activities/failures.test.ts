import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

/**
 * GET /api/v1/live-activities/{id}/failures: every status it answers. What it lists once devices fail is driven with
 * the fakes in tests/delivery/live-activities/delivery-stats.test.ts.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/live-activities/{id}/failures', () => {
  it('→ 200 with no failures while the start is being dispatched, and the start counted as dispatching', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const response = await get(t.app, activityPath(id, 'failures'), account.secretKey);
    expect(expectSuccess(response, 200)).toEqual([]);
    expect(response.body.nextCursor).toBeNull();
    expect(expectSuccess(await get(t.app, activityPath(id), account.secretKey), 200).lastEvent).toEqual({
      event: 'start',
      at: new Date(t.clock.now()).toISOString(),
      status: 'dispatching',
      targeted: 0,
      delivered: 0,
      failed: 0,
      skipped: 0,
      pending: 0,
      byMode: {},
      byPlatform: {},
    });
  });

  it.each([
    ['a cursor that is no subscriber id', '?cursor=lva_x', 'cursor'],
    ['a limit above 100', '?limit=101', 'limit'],
    ['an unknown parameter', '?event=start', 'event'],
  ])('→ 400 validation_failed for %s', async (_name, query, field) => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const error = expectError(
      await get(t.app, `${activityPath(id, 'failures')}${query}`, account.secretKey),
      'validation_failed',
    );
    expect(error.details.fields.map((problem: { field: string }) => problem.field)).toContain(field);
  });

  it('→ 401 without a key', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    expectError(await get(t.app, activityPath(id, 'failures'), null), 'unauthorized');
  });

  it('→ 403 for a publishable key', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, account.secretKey, 'orders');
    expectError(await get(t.app, activityPath(id, 'failures'), account.publishableKey), 'forbidden');
  });

  it("→ 404 for an unknown id, another account's activity, and one outside the key's channels", async () => {
    const account = await t.newAccount({ channels: ['orders', 'sport'] });
    const other = await t.newAccount({ channels: ['orders'] });
    const sport = await startActivity(t.app, account.secretKey, 'sport');
    const theirs = await startActivity(t.app, other.secretKey, 'orders');
    const scoped = await account.key({ channels: ['orders'] });
    for (const [key, id] of [
      [account.secretKey, newId('liveActivity')],
      [account.secretKey, theirs],
      [scoped.value, sport],
    ] as const)
      expect(expectError(await get(t.app, activityPath(id, 'failures'), key), 'not_found').message).toBe(
        'No Live Activity with that id.',
      );
  });
});
