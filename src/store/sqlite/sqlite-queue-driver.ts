import { claimDueJobs } from '../claim-due-jobs.ts';
import type { QueueDriver } from '../queue-driver.ts';

/**
 * SQLite: one writer at a time, so the claim needs no row locks. There is no cross-process notification: workers
 * in other processes (rare with SQLite) find work by polling; in-process wake-ups come from the queue itself.
 */
export const sqliteQueueDriver: QueueDriver = {
  claim: (db, input) => claimDueJobs(db, input, false),
  async announce() {},
  async listen() {
    return async () => {};
  },
};
