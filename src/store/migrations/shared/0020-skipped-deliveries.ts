/**
 * Skipped deliveries (docs/api.md, "Notifications"): `delivery_failures.outcome` says whether the row is a push
 * that failed (`failed`) or one Clarion chose not to send, with the reason why (`skipped`: a frequency cap, a silent
 * push to a browser). Both are listed by GET /notifications/{id}/failures; only failures decide a notification's
 * `failureReason` and a subscriber's last failure.
 */
export const statements: string[] = [`ALTER TABLE delivery_failures ADD COLUMN outcome TEXT NOT NULL DEFAULT 'failed'`];
