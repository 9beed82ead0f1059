import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/** The most units of work one shared transaction takes, so none holds SQLite's write lock for long. */
export const GROUP_COMMIT_MAX = 64;

// Built once, not per unit: these run around every accepted notification on SQLite.
const SAVEPOINT = CompiledQuery.raw('SAVEPOINT unit');
const RELEASE = CompiledQuery.raw('RELEASE unit');
const ROLLBACK_TO = CompiledQuery.raw('ROLLBACK TO unit');

interface Pending {
  work: (trx: Kysely<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for short transactions on SQLite: units of work submitted in the same turn of the event loop run in
 * ONE transaction, each inside a savepoint of its own, and each caller's promise settles once that transaction has
 * committed (or with its own error, its savepoint rolled back and the others unaffected). One COMMIT — the WAL append,
 * ~100 µs, the largest single cost of accepting a notification (docs/performance.md, "Accept path") — then pays for all
 * of them. A unit must use only the `trx` it is given. If the COMMIT itself fails, every unit of the group fails
 * with that error and nothing of it is stored. (PostgreSQL gives each unit its own: src/store/postgres/postgres-store.ts.)
 */
export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(private readonly db: Kysely<Database>) {}

  run<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const group = this.pending.splice(0, GROUP_COMMIT_MAX);
    if (this.pending.length > 0) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
    const [only] = group;
    if (group.length === 1 && only) {
      // Alone in its turn: a plain transaction, no savepoint needed.
      await this.db.transaction().execute(only.work).then(only.resolve, only.reject);
      return;
    }
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const unit of group) {
          await trx.executeQuery(SAVEPOINT);
          try {
            outcomes.push({ ok: true, value: await unit.work(trx) });
            await trx.executeQuery(RELEASE);
          } catch (error) {
            await trx.executeQuery(ROLLBACK_TO);
            await trx.executeQuery(RELEASE);
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      for (const unit of group) unit.reject(error);
      return;
    }
    group.forEach((unit, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.error);
    });
  }
}
