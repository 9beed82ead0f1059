/**
 * Localized notifications (docs/api.md, "Localized text"): `notifications.localizations`, JSON of BCP 47 tag →
 * {title, body}; null when the caller gave none.
 */
export const statements: string[] = ['ALTER TABLE notifications ADD COLUMN localizations TEXT'];
