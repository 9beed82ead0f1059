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
    const node = resolvePointer(root, error.schemaPath) as { hint?: string; anyOf?: Array<{ type?: string }> } | undefined;
    if (error.keyword === 'anyOf') {
      const types = node?.anyOf?.map((branch) => branch.type);
      const simple = types?.every((type) => typeof type === 'string');
      add(path, node?.hint ?? (simple ? `must be ${types!.map((type) => article(type!)).join(' or ')}` : 'does not have an accepted shape'));
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
