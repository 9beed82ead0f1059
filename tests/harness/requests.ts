import type { ClarionApp } from '../../src/http/app-types.ts';

/** inject() helpers: JSON in, parsed JSON out. */
export async function post(
  app: ClarionApp,
  url: string,
  key: string | null,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await app.inject({
    method: 'POST',
    url,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return Object.assign(response, { body: safeJson(response.body) });
}

export async function get(app: ClarionApp, url: string, key: string | null, headers: Record<string, string> = {}) {
  const response = await app.inject({
    method: 'GET',
    url,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  });
  return Object.assign(response, { body: safeJson(response.body) });
}

export async function patch(app: ClarionApp, url: string, key: string | null, body?: unknown) {
  const response = await app.inject({
    method: 'PATCH',
    url,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return Object.assign(response, { body: safeJson(response.body) });
}

export async function del(app: ClarionApp, url: string, key: string | null) {
  const response = await app.inject({ method: 'DELETE', url, headers: key ? { authorization: `Bearer ${key}` } : {} });
  return Object.assign(response, { body: safeJson(response.body) });
}

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
