import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/live-activities/{id} → 404 not_found', () => {
  it.each([
    ['an unknown id', () => newId('liveActivity')],
    ['a malformed id', () => 'lva_%00'],
    ['a subscriber id', () => newId('subscriber')],
    // Path ids are bounded by nothing but the router (src/http/schemas.ts IdParams): too long is unknown, as elsewhere.
    ['an id of 80 characters', () => `lva_${'a'.repeat(76)}`],
  ])('answers not_found for %s', async (_name, id) => {
    const account = await t.newAccount({ channels: ['orders'] });
    expect(expectError(await get(t.app, activityPath(id()), account.secretKey), 'not_found').message).toBe(
      'No Live Activity with that id.',
    );
  });

  it("answers not_found for another account's activity", async () => {
    const owner = await t.newAccount({ channels: ['orders'] });
    const id = await startActivity(t.app, owner.secretKey, 'orders');
    const other = await t.newAccount({ channels: ['orders'] });
    expectError(await get(t.app, activityPath(id), other.secretKey), 'not_found');
  });

  it('answers not_found to a key whose scope leaves out the activity channel', async () => {
    const account = await t.newAccount({ channels: ['orders', 'sport'] });
    const id = await startActivity(t.app, account.secretKey, 'sport');
    const scoped = await account.key({ channels: ['orders'] });
    expectError(await get(t.app, activityPath(id), scoped.value), 'not_found');
  });
});
