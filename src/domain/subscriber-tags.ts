/**
 * Subscriber tags (PATCH /subscribers/{id}) and the bounds of an audience (docs/api.md, "Targeting"). Tags are short
 * labels a caller attaches ("beta", "plan:pro", "city.berlin"), compared exactly (case-sensitive).
 */
export const TAG_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_:.-]{0,63}$';
export const MAX_TAGS_PER_SUBSCRIBER = 100;
/** External ids one send may target: each is a bound parameter of the dispatch's page query (SQLite allows 32,766). */
export const MAX_AUDIENCE_EXTERNAL_IDS = 10_000;
export const MAX_AUDIENCE_SUBSCRIBER_IDS = 10_000;
export const MAX_AUDIENCE_TAGS = 20;

/** The distinct tags, in a stable order, so a PATCH that repeats one stores it once. */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags)].sort();
}
