import type { FieldProblem } from '../domain/schema-errors.ts';

/**
 * The deepest nesting a request body may have. The deepest legitimate body (a web subscriber's `token.keys.auth`)
 * is 3 levels. A 64 KiB body can nest 32,000 levels, and later stages walk bodies recursively (the
 * Idempotency-Key hash, JSON.stringify when storing) and overflow the stack on that, a 500; so such a body stops here.
 */
export const JSON_MAX_DEPTH = 32;

const NUL = '\u0000';
/** With the u flag a well-formed surrogate pair is one code point, so this matches only an unpaired surrogate. */
const LONE_SURROGATE = /\p{Cs}/u;

function textProblem(text: string, what: string): string | null {
  if (text.includes(NUL)) return `${what} the NUL character (U+0000)`;
  if (LONE_SURROGATE.test(text)) return `${what} an unpaired surrogate (\\ud800–\\udfff): send valid Unicode text`;
  return null;
}

/**
 * What JSON allows but Clarion cannot take: nesting deeper than JSON_MAX_DEPTH; U+0000 in a string or key
 * (PostgreSQL text cannot store it, so it would fail at the database as a 500); an unpaired surrogate escape
 * like "\\ud800" (not Unicode: both databases would store U+FFFD instead, so what is read back would differ from
 * what was accepted). Iterative, so it is safe on any depth. Returns the first problem, or null.
 */
export function jsonBodyProblem(body: unknown): FieldProblem | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    const field = path || '(body)';
    if (typeof value === 'string') {
      const problem = textProblem(value, 'must not contain');
      if (problem) return { field, message: problem };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= JSON_MAX_DEPTH)
      return { field, message: `is nested too deeply: a body has at most ${JSON_MAX_DEPTH} levels` };
    for (const [key, item] of Object.entries(value)) {
      const problem = textProblem(key, 'must not have a key containing');
      if (problem) return { field, message: problem };
      stack.push({ value: item, path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
  return null;
}
