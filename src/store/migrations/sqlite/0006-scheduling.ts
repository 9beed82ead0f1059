/** Local-time delivery, cancelation and expiry of scheduled notifications (SQLite). */
export const statements = [
  `ALTER TABLE notifications ADD COLUMN deliver_at_local_time TEXT`,
  `ALTER TABLE notifications ADD COLUMN canceled_at INTEGER`,
  `ALTER TABLE notifications ADD COLUMN failure_reason TEXT`,
];
