/**
 * Silent pushes (docs/api.md, "Silent pushes"): `notifications.content_available`, 1 for a push that wakes the app
 * without showing anything (APNs background push, FCM data-only message), else 0.
 */
export const statements: string[] = [
  'ALTER TABLE notifications ADD COLUMN content_available INTEGER NOT NULL DEFAULT 0',
];
