import { isId, type IdKind } from '../domain/ids.ts';
import { PAGE_LIMIT_DEFAULT } from '../domain/limits.ts';
import { validationFailed } from './api-error.ts';

/**
 * Cursor pagination, the same on every list endpoint (docs/api.md): the store is asked for one row more than `limit`
 * to learn whether another page follows, and the cursor is the id of the page's last row — a keyset cursor, which
 * stays correct while rows are added, unlike an offset.
 */
export interface PageRequest {
  cursor: string | null;
  limit: number;
  /** Rows to read: one more than the page holds. */
  fetch: number;
}

/** Reads `limit` and `cursor` from a list's query; a cursor that is not an id of `kind` is a validation error. */
export function readPageQuery(query: { cursor?: string; limit?: number }, kind: IdKind): PageRequest {
  const { cursor } = query;
  if (cursor !== undefined && !isId(kind, cursor))
    throw validationFailed([{ field: 'cursor', message: 'must be the nextCursor of a previous page' }]);
  const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
  return { cursor: cursor ?? null, limit, fetch: limit + 1 };
}

/** The rows of this page, and the next page's cursor (null on the last page), from the `fetch` rows read. */
export function splitPage<Row>(
  rows: Row[],
  request: PageRequest,
  cursorOf: (row: Row) => string,
): { page: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, request.limit);
  return { page, nextCursor: rows.length > request.limit ? cursorOf(page[page.length - 1]!) : null };
}

/** A list's answer in the success envelope: this page's rows as `view` shows them, and the next page's cursor. */
export function pageResponse<Row, View>(
  rows: Row[],
  request: PageRequest,
  cursorOf: (row: Row) => string,
  view: (row: Row) => View,
) {
  const { page, nextCursor } = splitPage(rows, request, cursorOf);
  return { success: true as const, data: page.map(view), nextCursor };
}
