import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/store/accounts-queries.ts';
import { describeStore } from '../../src/store/database.ts';
import { claimUnrelayedEvents, markEventsRelayed } from '../../src/store/event-relay-queries.ts';
import { recordEvents } from '../../src/store/events-queries.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

/**
 * The storage port's contract (src/store/database.ts), run on both databases like every test file (SQLite, and
 * PostgreSQL with CLARION_TEST_DIALECT=postgres): each case is what a caller outside src/store/ relies on without
 * knowing which database it has. Short transactions are in group-commit.test.ts, the one-statement accept in
 * tests/queue/store-accepted-notification.test.ts, job claims in tests/queue/.
 */
let t: TestStore;
beforeAll(async () => {
  // A database of its own on PostgreSQL: the relay claim below takes every unrelayed event there is.
  t = await openTestStore({ isolated: true });
});
afterAll(async () => t.close());

/**
 * When the first of two transactions may go on: on PostgreSQL once the second has got as far as it can beside it (done
 * `step`, or waiting for a lock), so that a missing lock shows as a wrong answer; on SQLite at once, as the second
 * waits for the process's one connection whatever it does.
 */
async function secondGotAsFarAsItCan(step: Promise<void>): Promise<void> {
  if (t.store.dialect !== 'postgres') return;
  let done = false;
  void step.then(() => (done = true));
  for (;;) {
    if (done) return;
    const waiting = await t.store.db
      .selectFrom(sql<{ granted: boolean }>`pg_locks`.as('locks'))
      .select(sql<number>`count(*)`.as('count'))
      .where('granted', '=', false)
      .where(sql`database`, '=', sql`(select oid from pg_database where datname = current_database())`)
      .executeTakeFirstOrThrow();
    if (Number(waiting.count) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A promise and the function that settles it: to hold one transaction open while another runs. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

describe('the storage port', () => {
  it('lockTable: a check for "none yet" holds until the transaction that inserts commits, whatever runs beside it', async () => {
    const name = `first ${Date.now()}`;
    const now = Date.now();
    const firstChecked = signal();
    const release = signal();
    // Each inserts the account only if none by that name exists yet, after locking the table.
    const createIfNone = (onChecked: () => void, waitBeforeInsert: Promise<void>) =>
      t.store.db.transaction().execute(async (trx) => {
        await t.store.lockTable(trx, 'accounts');
        const existing = await trx.selectFrom('accounts').select('id').where('name', '=', name).executeTakeFirst();
        onChecked();
        await waitBeforeInsert;
        if (existing) return false;
        await createAccount(trx, { name, plan: 'free', now });
        return true;
      });
    const first = createIfNone(firstChecked.fire, release.promise);
    await firstChecked.promise;
    // The second starts while the first has checked and not inserted yet; it must not see "none" until it commits.
    const secondChecked = signal();
    const second = createIfNone(secondChecked.fire, Promise.resolve());
    await secondGotAsFarAsItCan(secondChecked.promise);
    release.fire();
    expect([await first, await second]).toEqual([true, false]);
    const rows = await t.store.db.selectFrom('accounts').select('id').where('name', '=', name).execute();
    expect(rows).toHaveLength(1);
  });

  it('claimUnrelayedEvents: two relays claiming at once take different events', async () => {
    const now = Date.now();
    const account = await createAccount(t.store.db, { name: `relay ${now}`, plan: 'free', now });
    const ids = await recordEvents(
      t.store.db,
      Array.from({ length: 6 }, (_, n) => ({
        accountId: account.id,
        type: 'subscriber.created' as const,
        data: { n },
        now,
      })),
    );
    const firstClaimed = signal();
    const release = signal();
    const claimAndMark = (onClaimed: () => void, waitBeforeMarking: Promise<void>) =>
      t.store.db.transaction().execute(async (trx) => {
        const events = await claimUnrelayedEvents(trx, t.store, 3);
        onClaimed();
        await waitBeforeMarking;
        await markEventsRelayed(
          trx,
          events.map((event) => event.id),
          now,
        );
        return events.map((event) => event.id);
      });
    const first = claimAndMark(firstClaimed.fire, release.promise);
    await firstClaimed.promise;
    const secondClaimed = signal();
    const second = claimAndMark(secondClaimed.fire, Promise.resolve());
    await secondGotAsFarAsItCan(secondClaimed.promise);
    release.fire();
    const [a, b] = [await first, await second];
    expect(a).toHaveLength(3);
    expect(b).toHaveLength(3);
    expect([...a, ...b].sort()).toEqual([...ids].sort());
  });

  it('describeStore names the database and never a password', () => {
    const described = describeStore(t.store, {
      databaseUrl: t.databaseUrl && 'postgres://clarion:s3cret@db.example:5432/clarion',
      dataDir: t.dataDir,
    });
    expect(described.dialect).toBe(t.store.dialect);
    expect(JSON.stringify(described)).not.toContain('s3cret');
    expect(described.database).toBe(t.databaseUrl ? 'postgres://clarion:***@db.example:5432/clarion' : t.dataDir);
  });
});
