/**
 * Throttled sends (docs/api.md, "Throttling"):
 * - `notifications.throttle_per_minute`: the most pushes a minute its fan-out sends (the send's own, else its app's
 *   default once the dispatch applies it); null for as fast as the providers take them;
 * - `apps.throttle_per_minute`: the default for sends to the app's channels that give none.
 */
export const statements: string[] = [
  'ALTER TABLE notifications ADD COLUMN throttle_per_minute INTEGER',
  'ALTER TABLE apps ADD COLUMN throttle_per_minute INTEGER',
];
