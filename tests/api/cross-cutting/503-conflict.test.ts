import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClarionApp } from '../../../src/http/app-types.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startFaultyApp, type FaultyApp } from '../../harness/faulty-app.ts';
import { testDialect } from '../../harness/test-dialect.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { isNotificationStore, type FaultyStore } from '../../delivery/engine/store-faults.ts';

/**
 * PostgreSQL aborts a transaction that deadlocks with another (40P01 deadlock_detected) or that a concurrent one made
 * unserializable (40001 serialization_failure), and asks the client to run it again
 * (https://www.postgresql.org/docs/current/mvcc-serialization-failure-handling.html). The API's short transactions run
 * again; one that keeps conflicting answers 503 unavailable (the caller retries), not a 500 that reads as a bug, and
 * stores nothing.
 */
let t: TestApp;
let faulty: FaultyStore;
let app: ClarionApp;
let h: FaultyApp;
beforeAll(async () => {
  h = await startFaultyApp();
  ({ t, faulty, app } = h);
});
afterAll(async () => h?.close());

const conflicts = {
  deadlock: () => Object.assign(new Error('deadlock detected'), { code: '40P01' }),
  'serialization failure': () =>
    Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' }),
};

async function notificationsOf(accountId: string): Promise<unknown[]> {
  return t.store.db.selectFrom('notifications').select('id').where('account_id', '=', accountId).execute();
}

describe('a transaction PostgreSQL aborts for a conflict', () => {
  it.runIf(testDialect === 'postgres').each(Object.entries(conflicts))(
    '%s once while accepting a notification: it runs again, 201, stored once',
    async (_name, conflict) => {
      const account = await t.newAccount({ channels: ['news'] });
      const failuresBefore = faulty.failures;
      faulty.failNext(1, isNotificationStore, conflict);
      const sent = await post(app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' });
      expect(sent.statusCode).toBe(201);
      expect(faulty.failures - failuresBefore).toBe(1);
      expect(await notificationsOf(account.id)).toEqual([{ id: sent.body.data.id }]);
    },
  );

  it.each(Object.entries(conflicts))(
    '%s on every try: 503 unavailable, and nothing was stored',
    async (_name, conflict) => {
      const account = await t.newAccount({ channels: ['news'] });
      faulty.failNext(10, isNotificationStore, conflict);
      expectError(
        await post(app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
        'unavailable',
      );
      // Whatever tries are left over are not this test's to keep.
      faulty.failNext(0);
      expect(await notificationsOf(account.id)).toEqual([]);
    },
  );
});
