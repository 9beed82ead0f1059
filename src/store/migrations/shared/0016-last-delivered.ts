import type { SqlTypes } from '../../migrate.ts';

/**
 * Last delivered (docs/api.md, "Reading and changing subscribers"): `subscribers.last_delivered_at`, when a push to
 * the subscriber was last accepted by its provider; null until one is. Set by the send batch's settling transaction
 * with one UPDATE per batch, never per push (src/delivery/send-batch-job.ts).
 */
export const statements = (types: SqlTypes): string[] => [
  `ALTER TABLE subscribers ADD COLUMN last_delivered_at ${types.timestamp}`,
];
