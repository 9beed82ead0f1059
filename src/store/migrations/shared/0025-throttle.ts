/**
 * Throttled sends (docs/api.md, "Throttling"): `notifications.throttle_per_minute`, the most pushes a minute its
 * fan-out sends; null for as fast as the providers take them.
 */
export const statements: string[] = ['ALTER TABLE notifications ADD COLUMN throttle_per_minute INTEGER'];
