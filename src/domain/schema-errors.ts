import type { TSchema } from 'typebox';

/** One entry of `details.fields` in a validation_failed error (docs/design.md 2.1). */
export interface FieldProblem {
  field: string;
  message: string;
}

/** The shape TypeBox (and Ajv) report errors in. */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * Turns schema validator errors into `{field, message}` pairs a person can act on. A schema node may carry a `hint`
 * (our own keyword, ignored by validators) that replaces the generic message, e.g. the progress-fraction hint.
 * Field names are dotted paths ("fields.home.score"), optionally under a prefix.
 */
export function describeSchemaErrors(root: TSchema, errors: Iterable<SchemaError>, prefix = ''): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  const add = (field: string, message: string) => {
    const key = `${field}\u0000${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push({ field: field || '(body)', message });
    }
  };
  const list = [...errors];
  // A failed anyOf reports each branch's failure and then its own; speak once, for the anyOf node.
  const unionPaths = list.filter((error) => error.keyword === 'anyOf').map((error) => `${error.schemaPath}/anyOf/`);
  const insideUnion = (error: SchemaError) => unionPaths.some((prefix) => error.schemaPath.startsWith(prefix));
  for (const error of list) {
    if (insideUnion(error)) continue;
    const path = joinPath(prefix, pointerToDots(error.instancePath));
    // "schema is false" echoes an additionalProperties failure that is reported below by name.
    if (error.keyword === 'boolean') continue;
    if (error.keyword === 'additionalProperties') {
      for (const name of (error.params.additionalProperties as string[] | undefined) ?? []) {
        add(joinPath(path, name), 'is not a known field');
      }
      continue;
    }
    if (error.keyword === 'required') {
      for (const name of (error.params.requiredProperties as string[] | undefined) ?? []) {
        add(joinPath(path, name), 'is required');
      }
      continue;
    }
    const node = resolvePointer(root, error.schemaPath) as (SchemaNode & { hint?: string }) | undefined;
    if (error.keyword === 'anyOf') {
      add(path, node?.hint ?? describeUnion(node?.anyOf ?? []));
      continue;
    }
    add(path, node?.hint ?? friendlyMessage(error));
  }
  return problems;
}

function friendlyMessage(error: SchemaError): string {
  const { keyword, params } = error;
  switch (keyword) {
    case 'type':
      return `must be ${article(String(params.type))}`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must have at least ${params.limit} characters`;
    case 'maxLength':
      return `must have at most ${params.limit} characters`;
    case 'minimum':
      return `must be at least ${params.limit}`;
    case 'maximum':
      return `must be at most ${params.limit}`;
    case 'enum':
      return `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'format':
      return `must be ${params.format === 'date-time' ? 'an ISO 8601 date-time with offset' : `a valid ${params.format}`}`;
    case 'pattern':
      return 'has the wrong shape';
    case 'minItems':
      return `must have at least ${params.limit} items`;
    case 'maxItems':
      return `must have at most ${params.limit} items`;
    case 'maxProperties':
      return `must have at most ${params.limit} entries`;
    default:
      return error.message ?? 'is not valid';
  }
}

/** The parts of a schema node a union's message is made from. */
interface SchemaNode {
  type?: unknown;
  const?: unknown;
  enum?: unknown[];
  anyOf?: SchemaNode[];
}

/**
 * "must be one of: normal, high" for a union of literals (each branch is `{type: 'string', const}`, so naming types
 * would say "a string or a string"), "must be a string or null" for a union of types, both when mixed; a branch
 * that is an object with its own rules is named by its type. Types are named once each.
 */
function describeUnion(branches: SchemaNode[]): string {
  const values: unknown[] = [];
  const types: string[] = [];
  const walk = (branch: SchemaNode) => {
    if (branch.anyOf) branch.anyOf.forEach(walk);
    else if ('const' in branch) values.push(branch.const);
    else if (Array.isArray(branch.enum)) values.push(...branch.enum);
    else if (typeof branch.type === 'string') types.push(branch.type);
    else types.push('');
  };
  branches.forEach(walk);
  if (types.includes('')) return 'does not have an accepted shape';
  const named = [...new Set(types)].map(article);
  if (named.length === 0)
    return values.length === 1 ? `must be ${plain(values[0])}` : `must be one of: ${values.map(plain).join(', ')}`;
  const listed = [...values.map(plain), ...named];
  return `must be ${listed.length === 1 ? listed[0] : `${listed.slice(0, -1).join(', ')} or ${listed.at(-1)}`}`;
}

/** A literal as a person would type it: strings bare (as in "one of: normal, high"), anything else as JSON. */
function plain(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function article(type: string): string {
  if (type === 'null') return 'null';
  return type === 'integer' ? 'a whole number' : type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`;
}

function pointerToDots(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function joinPath(left: string, right: string): string {
  return left && right ? `${left}.${right}` : left || right;
}

function resolvePointer(root: unknown, pointer: string): unknown {
  const parts = pointer.replace(/^#\/?/, '').split('/').filter(Boolean);
  let node: unknown = root;
  for (const part of parts) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}
