import fc from 'fast-check';
import type { JsonSchema } from '../harness/openapi-operations.ts';

/**
 * fast-check arbitraries from the JSON Schemas of the OpenAPI document: values a schema accepts (mostly), and the
 * kinds of wrong input a careless or hostile client sends. Sizes stay small except where size is the point (a huge
 * string), so a run stays fast and a failure shrinks to something readable.
 */

/** Strings that have broken parsers and databases before: NUL, unpaired surrogates, RTL overrides, SQL, prototypes. */
export const oddStrings: string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202e\u0041',
  '🙂'.repeat(20),
  "' OR '1'='1",
  '"; DROP TABLE accounts; --',
  '__proto__',
  'constructor',
  '../../etc/passwd',
  '%00',
  '%',
  '\r\nX-Injected: 1',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e309',
  '<script>alert(1)</script>',
];

/** Date-times a client might send: valid ones in several offsets, and ones that only look like dates. */
export const badDates: string[] = [
  '2026-13-45T25:61:00Z',
  '2026-02-30T10:00:00Z',
  '0000-00-00T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '2026-05-01',
  '2026-05-01T09:00:00',
  'tomorrow',
  '1714550400',
  '2026-05-01T09:00:00+25:00',
  '-002026-05-01T09:00:00Z',
  '2026-05-01T09:00:00.123456789Z',
];

const uris = [
  'https://127.0.0.1/hook',
  'https://example.com/orders/42',
  'http://[::1]:8080/x',
  'https://localhost/x',
  'ftp://example.com/x',
  'not a url',
  'https://',
  'javascript:alert(1)',
];

/** A string of the kind a field of this schema expects, often valid, sometimes not. */
function stringFor(schema: JsonSchema, hints: Record<string, string[]>, name: string): fc.Arbitrary<string> {
  const options: Array<fc.Arbitrary<string>> = [];
  if (hints[name]) options.push(fc.constantFrom(...hints[name]));
  if (schema.format === 'date-time') {
    options.push(
      fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString()),
      fc.constantFrom(...badDates),
    );
  } else if (schema.format === 'uri') {
    options.push(fc.constantFrom(...uris));
  } else if (typeof schema.pattern === 'string') {
    options.push(
      fc.stringMatching(new RegExp(schema.pattern)).filter((value) => value.length <= (schema.maxLength ?? 200)),
    );
  } else {
    options.push(fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) }));
  }
  options.push(fc.constantFrom(...oddStrings));
  return fc.oneof(...options);
}

/**
 * A value for `schema`, meant to pass it most of the time (so requests get past validation into the handlers), with
 * odd strings and bad dates mixed in. `hints` give good values by property name (a channel code that exists).
 */
export function validish(
  schema: JsonSchema | undefined,
  hints: Record<string, string[]> = {},
  name = '',
  depth = 0,
): fc.Arbitrary<unknown> {
  if (!schema || typeof schema !== 'object' || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches))
    return fc.oneof(...branches.map((branch: JsonSchema) => validish(branch, hints, name, depth + 1)));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'string':
      return stringFor(schema, hints, name);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validish(schema.items, hints, name, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object': {
      const properties: Record<string, JsonSchema> = schema.properties ?? {};
      if (Object.keys(properties).length === 0) {
        return fc.dictionary(
          fc.string({ maxLength: 10 }),
          validish(schema.additionalProperties || { type: 'string' }, hints, '', depth + 1),
          { maxKeys: 4 },
        );
      }
      const model = Object.fromEntries(
        Object.entries(properties).map(([key, child]) => [key, validish(child, hints, key, depth + 1)]),
      );
      // Required properties are usually there; optional ones come and go.
      const required = (schema.required ?? []).filter((key: string) => key in model);
      return fc.oneof(
        { arbitrary: fc.record(model, { requiredKeys: required }), weight: 4 },
        { arbitrary: fc.record(model, { requiredKeys: [] }), weight: 1 },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values of the wrong kind for almost any field: other types, odd and huge strings, bad dates, deep nesting. */
export const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(...oddStrings),
  fc.constantFrom(...badDates),
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53 + 1, 1e308, -1e308, [], {}),
  fc.integer({ min: 1, max: 20_000 }).map((length) => 'x'.repeat(length)),
  fc.integer({ min: 1, max: 200 }).map((depth) => nested(depth)),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

function nested(depth: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

/** A copy of a value with one property, at any depth, replaced by junk (or a junk property added). */
export function mutated(base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(base, junkValue, fc.nat(), fc.constantFrom('replace', 'add')).map(([value, junk, pick, how]) => {
    const paths = objectPaths(value);
    if (paths.length === 0) return junk;
    const path = paths[pick % paths.length]!;
    return how === 'add' ? setAt(value, [...path, 'unexpected'], junk) : setAt(value, path, junk);
  });
}

function objectPaths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => [[...prefix, key], ...objectPaths(child, [...prefix, key])]);
}

function setAt(value: unknown, path: string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy: Record<string, unknown> =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? { ...(value as Record<string, unknown>) }
      : {};
  copy[path[0]!] = setAt(copy[path[0]!], path.slice(1), replacement);
  return copy;
}
