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
