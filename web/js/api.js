// The one way the dashboard talks to Clarion: the same /api/v1 endpoints as any API client, authenticated by the
// HttpOnly session cookie (sent by the browser, never visible here) plus the session's CSRF token on changes.

/** An error answer from the API (or no answer at all), carrying the API's own message for display. */
export class ApiProblem extends Error {
  constructor({ status, code, message, details = null, requestId = null, retryAfter = null }) {
    super(message);
    this.name = 'ApiProblem';
    this.status = status;
    this.code = code;
    this.details = details;
    this.requestId = requestId;
    this.retryAfter = retryAfter;
  }
}

let csrfToken = null;
let onSessionEnded = () => {};

export function setCsrfToken(token) {
  csrfToken = token;
}

/** Called when a request of a signed-in page answers 401: the session ended (signed out elsewhere, expired). */
export function whenSessionEnds(callback) {
  onSessionEnded = callback;
}

const SAFE = new Set(['GET', 'HEAD']);

/** Sends one request; resolves with the whole success envelope ({data, nextCursor?}), or throws ApiProblem. */
export async function request(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (!SAFE.has(method) && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiProblem({
      status: 0,
      code: 'network_error',
      message: 'Could not reach the Clarion server. Check that it is running and try again.',
    });
  }
  let payload = null;
  try {
    payload = await response.json();
  } catch {
    payload = null;
  }
  if (response.ok && payload && payload.success === true) return payload;
  const error = payload && payload.error ? payload.error : null;
  const problem = new ApiProblem({
    status: response.status,
    code: error ? error.code : 'unexpected_response',
    message: error
      ? error.message
      : `The server answered ${response.status} ${response.statusText} without an explanation.`,
    details: error ? (error.details ?? null) : null,
    requestId: error ? error.requestId : response.headers.get('x-request-id'),
    retryAfter: response.headers.get('retry-after'),
  });
  if (response.status === 401 && !path.startsWith('/api/v1/auth/')) onSessionEnded(problem);
  throw problem;
}

export const api = {
  get: async (path) => (await request('GET', path)).data,
  list: (path) => request('GET', path),
  post: async (path, body) => (await request('POST', path, body)).data,
  patch: async (path, body) => (await request('PATCH', path, body)).data,
  delete: async (path) => (await request('DELETE', path)).data,
};

/** A path with query parameters, leaving out empty ones. */
export function withQuery(path, params) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') query.set(name, String(value));
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
