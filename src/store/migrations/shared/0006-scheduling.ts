import type { SqlTypes } from '../../migrate.ts';

/** Local-time delivery, cancelation and expiry of scheduled notifications. */
export const statements = (types: SqlTypes): string[] => [
  `ALTER TABLE notifications ADD COLUMN deliver_at_local_time TEXT`,
  `ALTER TABLE notifications ADD COLUMN canceled_at ${types.timestamp}`,
  `ALTER TABLE notifications ADD COLUMN failure_reason TEXT`,
];
