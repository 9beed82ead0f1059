import type { SqlTypes } from '../../migrate.ts';

/**
 * A notification's platform options (docs/api.md, "Sending"): iOS's subtitle, category, interruption level, relevance
 * score and target content id, and Android's notification channel. Null when the caller gave none.
 */
export const statements = (types: SqlTypes): string[] => [
  'ALTER TABLE notifications ADD COLUMN subtitle TEXT',
  'ALTER TABLE notifications ADD COLUMN category TEXT',
  'ALTER TABLE notifications ADD COLUMN interruption_level TEXT',
  `ALTER TABLE notifications ADD COLUMN relevance_score ${types.real}`,
  'ALTER TABLE notifications ADD COLUMN target_content_id TEXT',
  'ALTER TABLE notifications ADD COLUMN android_channel_id TEXT',
];
