import type { ClarionApp } from '../../src/http/app-types.ts';
import { get } from './requests.ts';

/** A JSON Schema node as the OpenAPI document has it (with `$ref`s resolved). */
export type JsonSchema = Record<string, any>;

export interface Operation {
  method: string;
  /** As the OpenAPI document writes it, e.g. /api/v1/notifications/{id} */
  path: string;
  pathParams: Array<{ name: string; schema: JsonSchema }>;
  queryParams: Array<{ name: string; schema: JsonSchema; required: boolean }>;
  /** The JSON body schema, when the operation takes one. */
  body: JsonSchema | undefined;
  /** Who may call it: anyone, a dashboard session only, or an API key (or a session acting like a secret key). */
  auth: 'none' | 'session' | 'key';
  /** The media types the document gives each response status, e.g. {'200': ['image/svg+xml'], '404': ['application/json']}. */
  responseTypes: Record<string, string[]>;
}

/**
 * Every /api/v1 operation of the app's own OpenAPI document (GET /api/v1/openapi.json), with its parameters and body
 * schema resolved: the tests that must cover "every route" (the fuzz suite, the message walk) start from what the API
 * publishes, so an endpoint added later is covered without touching them.
 */
export async function loadOperations(app: ClarionApp): Promise<Operation[]> {
  const spec = (await get(app, '/api/v1/openapi.json', null)).body;
  const resolve = (node: any, seen: string[] = []): any => {
    if (Array.isArray(node)) return node.map((item) => resolve(item, seen));
    if (node === null || typeof node !== 'object') return node;
    if (typeof node.$ref === 'string') {
      if (seen.includes(node.$ref)) return {};
      const target = node.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((at: any, part: string) => at?.[part], spec);
      return resolve(target, [...seen, node.$ref]);
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolve(value, seen)]));
  };
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(spec.paths)) {
    if (!path.startsWith('/api/v1/') || path === '/api/v1/openapi.json') continue;
    for (const [method, raw] of Object.entries<any>(methods)) {
      const operation = resolve(raw);
      const parameters: any[] = operation.parameters ?? [];
      const security: any[] | undefined = operation.security;
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters
          .filter((parameter) => parameter.in === 'path')
          .map((parameter) => ({ name: parameter.name, schema: parameter.schema ?? {} })),
        queryParams: parameters
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => ({
            name: parameter.name,
            schema: parameter.schema ?? {},
            required: parameter.required === true,
          })),
        body: operation.requestBody?.content?.['application/json']?.schema,
        auth:
          security === undefined
            ? 'key'
            : security.length === 0
              ? 'none'
              : security.some((entry) => 'session' in entry)
                ? 'session'
                : 'key',
        responseTypes: Object.fromEntries(
          Object.entries<any>(operation.responses ?? {}).map(([status, response]) => [
            status,
            Object.keys(response?.content ?? {}),
          ]),
        ),
      });
    }
  }
  return operations;
}

/** The property paths of an object schema, depth first (`fields.home.score`), with the schema at each; unions too. */
export function propertyPaths(
  schema: JsonSchema | undefined,
  depth = 3,
  prefix: string[] = [],
): Array<{ path: string[]; schema: JsonSchema }> {
  if (!schema || depth === 0) return [];
  const branches: JsonSchema[] = schema.anyOf ?? schema.oneOf ?? [schema];
  const found: Array<{ path: string[]; schema: JsonSchema }> = [];
  for (const branch of branches) {
    for (const [name, child] of Object.entries<JsonSchema>(branch.properties ?? {})) {
      const path = [...prefix, name];
      found.push({ path, schema: child }, ...propertyPaths(child, depth - 1, path));
    }
  }
  return found;
}

/** A copy of `body` with the value at `path` replaced (objects created along the way). */
export function withValueAt(body: unknown, path: string[], value: unknown): unknown {
  const copy: any = body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...body } : {};
  const [head, ...rest] = path;
  copy[head!] = rest.length === 0 ? value : withValueAt(copy[head!], rest, value);
  return copy;
}
