/**
 * Job lanes (src/queue/worker-pool.ts): `jobs.lane`, what a job waits on when it waits outside the process (a send
 * job: its platform's provider), or null. A worker whose running jobs of one lane have stopped making progress claims
 * no more jobs of that lane and lets due jobs of other lanes run beside them.
 */
export const statements = [`ALTER TABLE jobs ADD COLUMN lane TEXT`];
