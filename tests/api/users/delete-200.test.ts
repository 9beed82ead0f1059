import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { listEvents } from '../../../src/store/events-queries.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { del, get, patch, post } from '../../harness/requests.ts';
import { progressActivity, send, subscribe, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** Every row of every table, as text: what "no row names the user" is checked against. */
async function everyRow(): Promise<string[]> {
  const rows: string[] = [];
  const tables = (await t.store.db.introspection.getTables())
    .map((table) => table.name)
    .filter((name) => !name.startsWith('kysely_'));
  expect(tables).toContain('subscribers');
  for (const table of tables) {
    for (const row of await t.store.db
      .selectFrom(table as 'subscribers')
      .selectAll()
      .execute())
      rows.push(`${table}: ${JSON.stringify(row)}`);
  }
  return rows;
}

describe('DELETE /api/v1/users/:externalId → 200', () => {
  it('erases the person: subscribers, tokens, tags, failures, frequency-cap counts and Live Activity tokens; no row names them afterwards', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const externalId = `erase-me-${randomUUID()}`;
    const iosToken = tokens.ios();
    const webToken = tokens.web();
    const phone = expectSuccess(
      await post(t.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode: 'news',
        platform: 'ios',
        token: iosToken,
        externalId,
        pushToStartToken: tokens.ios(),
      }),
      201,
    ).id;
    const browser = expectSuccess(
      await post(t.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode: 'sport',
        platform: 'web',
        token: webToken,
        externalId,
      }),
      201,
    ).id;
    const kept = await subscribe(t.app, account.publishableKey, 'news', 'android', { externalId: 'someone-else' });
    expectSuccess(await patch(t.app, `/api/v1/subscribers/${phone}`, account.secretKey, { tags: ['vip'] }), 200);
    const notification = await send(t.app, account.secretKey, 'news');
    await t.store.db
      .insertInto('delivery_failures')
      .values({
        notification_id: notification,
        subscriber_id: phone,
        platform: 'ios',
        reason: 'token_invalid',
        created_at: t.clock.now(),
      })
      .execute();
    await t.store.db
      .insertInto('frequency_cap_deliveries')
      .values({ subscriber_id: phone, notification_id: notification, delivered_at: t.clock.now() })
      .execute();
    const activity = expectSuccess(
      await post(t.app, '/api/v1/live-activities', account.secretKey, progressActivity('news')),
      201,
    ).id;
    expectSuccess(
      await post(t.app, `/api/v1/live-activities/${activity}/tokens`, account.publishableKey, {
        subscriberId: phone,
        token: tokens.ios(),
        deviceToken: iosToken,
      }),
      201,
    );
    const before = await everyRow();
    expect(before.some((row) => row.includes(externalId))).toBe(true);

    const data = expectSuccess(await del(t.app, `/api/v1/users/${externalId}`, account.secretKey), 200);
    expect(data).toEqual({
      externalId,
      deletedSubscribers: [
        { id: phone, channelCode: 'news', platform: 'ios' },
        { id: browser, channelCode: 'sport', platform: 'web' },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    });

    const after = await everyRow();
    expect(after.filter((row) => row.includes(externalId))).toEqual([]);
    expect(after.filter((row) => row.includes(iosToken) || row.includes(webToken.endpoint))).toEqual([]);
    expect(
      after.filter(
        (row) =>
          !row.startsWith('events:') && !row.startsWith('jobs:') && (row.includes(phone) || row.includes(browser)),
      ),
    ).toEqual([]);
    expect(expectSuccess(await get(t.app, `/api/v1/subscribers/${kept}`, account.secretKey), 200).status).toBe(
      'active',
    );
    expectError(await get(t.app, `/api/v1/subscribers/${phone}`, account.secretKey), 'not_found');
    expectError(await get(t.app, `/api/v1/users/${externalId}`, account.secretKey), 'not_found');

    const deletedEvents = (await listEvents(t.store.db, account.id))
      .filter((event) => event.type === 'subscriber.deleted')
      .map((event) => event.data);
    expect(deletedEvents).toEqual(
      expect.arrayContaining([
        { subscriberId: phone, channelCode: 'news', platform: 'ios', reason: 'erased' },
        { subscriberId: browser, channelCode: 'sport', platform: 'web', reason: 'erased' },
      ]),
    );
    expect(deletedEvents).toHaveLength(2);
  });
});
