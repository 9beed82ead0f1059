/** True when a database error is a unique-constraint violation, on either driver. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // PostgreSQL: SQLSTATE 23505 unique_violation. better-sqlite3: extended result codes as strings.
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/** PostgreSQL deadlock_detected (40P01) or serialization_failure (40001): the transaction may simply be run again. */
export function isRetryableConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Runs `work` (a whole transaction) again when PostgreSQL aborted it for a deadlock or serialization conflict,
 * up to `attempts` times. For transactions that follow an expensive side effect (pushes already sent), where
 * failing the job would repeat the side effect.
 */
export async function withConflictRetry<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error;
    }
  }
}

/**
 * The database cannot serve or cannot store right now, through no fault of the request: unreachable or restarting,
 * busy, out of disk, read-only (a failed-over replica, a read-only file system), an I/O error. The API answers 503
 * `unavailable` (callers retry) and /readyz reports it, instead of a 500 that reads as a bug.
 * - connections: ECONNREFUSED/ECONNRESET/ETIMEDOUT, PostgreSQL class 08 (connection exception), 57P01 admin_shutdown,
 *   57P02 crash_shutdown, 57P03 cannot_connect_now;
 * - PostgreSQL class 53 (insufficient resources: 53100 disk_full, 53200 out_of_memory, 53300 too_many_connections),
 *   25006 read_only_sql_transaction, 58030 io_error;
 * - better-sqlite3 (extended result codes): SQLITE_BUSY, SQLITE_LOCKED, SQLITE_FULL, SQLITE_READONLY*, SQLITE_IOERR*,
 *   SQLITE_CANTOPEN.
 * https://www.postgresql.org/docs/current/errcodes-appendix.html, https://www.sqlite.org/rescode.html
 */
export function isStorageUnavailable(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P02', '57P03', '25006', '58030'].includes(code))
    return true;
  if (/^(08|53)[0-9A-Z]{3}$/.test(code)) return true;
  return /^SQLITE_(BUSY|LOCKED|FULL|READONLY|IOERR|CANTOPEN)(_|$)/.test(code);
}
