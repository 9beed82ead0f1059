/**
 * Public join pages (docs/web-push.md, "Join page"), SQLite.
 *
 * - `accounts.slug` names the account in /join/{slug}/{channelCode}. New accounts get one from their name
 *   (src/store/accounts-queries.ts); existing ones get the random part of their id (`acc_01hx…` → `01hx…`): unique
 *   and URL-safe without guessing at names in SQL. SQLite adds a NOT NULL column only with a default, hence the ''
 *   that the UPDATE replaces at once.
 * - `channels.join_key_id` / `join_key_secret`: the publishable key, scoped to the channel, that the join page embeds
 *   while the page is switched on (null = off). The key's value is sealed with the instance key (context = channel
 *   id), since the page must show it again on every visit and api_keys keeps only hashes.
 */
export const statements = [
  `ALTER TABLE accounts ADD COLUMN slug TEXT NOT NULL DEFAULT ''`,
  `UPDATE accounts SET slug = substr(id, 5)`,
  `CREATE UNIQUE INDEX accounts_slug ON accounts (slug)`,
  `ALTER TABLE channels ADD COLUMN join_key_id TEXT REFERENCES api_keys(id)`,
  `ALTER TABLE channels ADD COLUMN join_key_secret TEXT`,
];
