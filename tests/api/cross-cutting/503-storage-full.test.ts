import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClarionApp } from '../../../src/http/app-types.ts';
import { isStorageUnavailable } from '../../../src/store/store-errors.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startFaultyApp, type FaultyApp } from '../../harness/faulty-app.ts';
import type { TestApp } from '../../harness/test-app.ts';
import {
  diskFullError,
  isNotificationStore,
  readOnlyError,
  type FaultyStore,
} from '../../delivery/engine/store-faults.ts';

/** A full disk or a read-only database is the operator's outage: 503 unavailable (callers retry), not 500. */
let t: TestApp;
let faulty: FaultyStore;
let app: ClarionApp;
let h: FaultyApp;
beforeAll(async () => {
  h = await startFaultyApp();
  ({ t, faulty, app } = h);
});
afterAll(async () => h?.close());

describe('storage full or read-only → 503 unavailable', () => {
  it.each([
    ['disk full', diskFullError],
    ['read-only', readOnlyError],
  ])('%s while accepting a notification: 503, and nothing was stored', async (_name, error) => {
    const account = await t.newAccount({ channels: ['news'] });
    faulty.failNext(1, isNotificationStore, () => error(t.store.dialect));
    expectError(
      await post(app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
      'unavailable',
    );
    expect(
      await t.store.db.selectFrom('notifications').select('id').where('account_id', '=', account.id).execute(),
    ).toEqual([]);
    expect(
      (await post(app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' })).statusCode,
    ).toBe(201);
  });

  it.each([
    ['SQLITE_FULL', true],
    ['SQLITE_READONLY', true],
    ['SQLITE_READONLY_DBMOVED', true],
    ['SQLITE_IOERR_WRITE', true],
    ['SQLITE_BUSY', true],
    ['53100', true],
    ['53300', true],
    ['25006', true],
    ['08006', true],
    ['57P01', true],
    ['SQLITE_CONSTRAINT_UNIQUE', false],
    ['23505', false],
    ['22P02', false],
    ['SQLITE_FULLY', false],
  ])('%s → %s', (code, unavailable) => {
    expect(isStorageUnavailable(Object.assign(new Error('x'), { code }))).toBe(unavailable);
  });
});
