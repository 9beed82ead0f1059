/**
 * Text from a URL (a path parameter, a query filter) that a database could be asked about. PostgreSQL text cannot hold
 * U+0000 ("invalid byte sequence for encoding UTF8: 0x00"), so such a value would fail there as a 500; request bodies
 * are checked for it in src/http/json-body.ts, and nothing stored can contain it.
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000');
}
