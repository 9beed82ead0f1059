import type { Logger } from 'pino';
import { isStorageUnavailable } from './store-errors.ts';

/**
 * What a loop that queries on a timer (the worker's claims, the webhook relay) says about a database outage: a warning
 * at its first failed pass and a line when a pass succeeds again, not an error every interval for as long as the
 * database is down, which would bury everything else in the log. Only failures `isStorageUnavailable` recognizes count
 * as the outage; any other error is the caller's to log, every time.
 */
export class StorageOutageLog {
  private down = false;

  constructor(
    private readonly logger: Logger,
    private readonly messages: { down: string; back: string },
  ) {}

  /** True when `error` is the database being unavailable (logged only when the outage begins); false otherwise. */
  failed(error: unknown): boolean {
    if (!isStorageUnavailable(error)) return false;
    if (!this.down) {
      this.down = true;
      this.logger.warn({ err: error }, this.messages.down);
    }
    return true;
  }

  /** A pass that reached the database: ends the outage, if one was logged. */
  succeeded(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.info(this.messages.back);
  }
}
