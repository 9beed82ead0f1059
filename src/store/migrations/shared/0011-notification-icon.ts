/**
 * `notifications.icon_url`: the small icon a browser shows with a Web Push notification (docs/web-push.md, "What the
 * service worker receives"). iOS and Android show the app's own icon, so only the web message carries it.
 */
export const statements = [`ALTER TABLE notifications ADD COLUMN icon_url TEXT`];
