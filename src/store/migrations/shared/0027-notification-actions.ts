/**
 * Action buttons (docs/engagement.md, "Action buttons"): `notifications.actions`, JSON of [{id, title, url?}]; null
 * when the caller gave none.
 */
export const statements: string[] = ['ALTER TABLE notifications ADD COLUMN actions TEXT'];
