import { randomBytes } from 'node:crypto';
import type { TestApp } from './test-app.ts';

/** A password that passes the rules (src/domain/passwords.ts). */
export const GOOD_PASSWORD = 'correct horse battery';

/**
 * A random client address per call. Sign-in limits count per address in the database, and on PostgreSQL test files
 * share one database: tests that all came from 127.0.0.1 would spend each other's attempts.
 */
export function randomIp(): string {
  const [a, b, c] = randomBytes(3);
  return `10.${a}.${b}.${c}`;
}

export function randomEmail(): string {
  return `user-${randomBytes(6).toString('hex')}@example.com`;
}

export interface DashboardSession {
  email: string;
  password: string;
  /** The session token (the cookie's value). */
  token: string;
  /** "clarion_session=<token>", for a Cookie header. */
  cookie: string;
  csrfToken: string;
  accountId: string;
  userId: string;
  ip: string;
}

export interface SessionResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
}

/** The session cookie a response sets, as "name=value" (undefined when it sets none). */
export function sessionCookieOf(response: { headers: Record<string, unknown> }): string | undefined {
  const header = response.headers['set-cookie'];
  const all = Array.isArray(header) ? header : header === undefined ? [] : [String(header)];
  return all.find((cookie) => cookie.startsWith('clarion_session='))?.split(';')[0];
}

/** Calls the app as the dashboard does: the cookie, and X-CSRF-Token unless `csrf` is null (or another value). */
export async function sessionCall(
  t: TestApp,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  session: Pick<DashboardSession, 'cookie' | 'csrfToken' | 'ip'> | null,
  options: { body?: unknown; csrf?: string | null; headers?: Record<string, string>; ip?: string } = {},
): Promise<SessionResponse> {
  const csrf = options.csrf === undefined ? session?.csrfToken : options.csrf;
  const response = await t.app.inject({
    method,
    url,
    remoteAddress: options.ip ?? session?.ip ?? randomIp(),
    headers: {
      ...(session ? { cookie: session.cookie } : {}),
      ...(csrf ? { 'x-csrf-token': csrf } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
  });
  let body: any = response.body;
  try {
    body = JSON.parse(response.body);
  } catch {
    // not JSON
  }
  return { statusCode: response.statusCode, headers: response.headers, body };
}

/** Signs a new user up through the API (a new Free account) and returns the session. */
export async function signUp(
  t: TestApp,
  options: { email?: string; password?: string; accountName?: string; ip?: string } = {},
): Promise<DashboardSession> {
  const email = options.email ?? randomEmail();
  const password = options.password ?? GOOD_PASSWORD;
  const ip = options.ip ?? randomIp();
  const body = { email, password, ...(options.accountName ? { accountName: options.accountName } : {}) };
  const response = await sessionCall(t, 'POST', '/api/v1/auth/signup', null, { body, ip });
  if (response.statusCode !== 201)
    throw new Error(`signup failed: ${response.statusCode} ${JSON.stringify(response.body)}`);
  return sessionFrom(response, { email, password, ip });
}

/** Signs an existing user in and returns the new session. */
export async function signIn(t: TestApp, email: string, password: string, ip = randomIp()): Promise<DashboardSession> {
  const response = await sessionCall(t, 'POST', '/api/v1/auth/signin', null, { body: { email, password }, ip });
  if (response.statusCode !== 200)
    throw new Error(`signin failed: ${response.statusCode} ${JSON.stringify(response.body)}`);
  return sessionFrom(response, { email, password, ip });
}

function sessionFrom(
  response: SessionResponse,
  who: { email: string; password: string; ip: string },
): DashboardSession {
  const cookie = sessionCookieOf(response)!;
  const session = response.body.data.session;
  return {
    ...who,
    token: cookie.slice('clarion_session='.length),
    cookie,
    csrfToken: session.csrfToken,
    accountId: session.account.id,
    userId: session.user.id,
  };
}
