import { request as httpsRequest } from 'node:https';
import { SignJWT } from 'jose';
import type { Clock } from '../../domain/clock.ts';
import { isTlsTrustError } from '../http2/request.ts';
import type { ParsedFcmServiceAccount } from '../provider-credentials.ts';

/**
 * OAuth 2.0 access token for FCM from a service account (docs/protocols.md 3.1): an RS256 JWT assertion
 * {iss: client_email, scope: firebase.messaging, aud: token_uri, iat, exp = iat + 3600} posted to token_uri as
 * grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer; the answer is {access_token, expires_in, token_type}.
 *
 * The token is cached until REFRESH_MARGIN_MS before it expires. 5 minutes is google-auth-library's
 * eagerRefreshThresholdMillis: it covers clock skew with Google and a send that starts just before expiry and spends
 * up to the 15 s request timeout in flight. With 3600 s tokens that is one exchange per 55 minutes per process.
 * Concurrent callers share one in-flight exchange.
 */
export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Google allows exp − iat of at most one hour. */
const ASSERTION_LIFETIME_SECONDS = 3600;
export const REFRESH_MARGIN_MS = 5 * 60_000;

export interface FcmAccessTokenOptions {
  account: ParsedFcmServiceAccount;
  clock: Clock;
  /** Extra CA for token_uri (tests). Global fetch cannot take one without an undici dispatcher, so then node:https. */
  ca?: string | Buffer;
  /** Injectable for tests; default global fetch. */
  fetch?: typeof fetch;
  /** Default 15 s. */
  timeoutMs?: number;
}

/** Why an exchange failed: `credentials` means the service account itself is refused (fatal), else transient. */
export class FcmTokenError extends Error {
  override name = 'FcmTokenError';
  constructor(
    readonly kind: 'credentials' | 'transient',
    message: string,
  ) {
    super(message);
  }
}

export interface FcmAccessToken {
  /** A valid access token, from cache or a fresh exchange. */
  get(): Promise<string>;
  /**
   * The cached token while it needs no exchange (every push but one per ~55 minutes), else null: lets the client skip
   * an await per push, as the APNs provider token does (apns-provider-token.ts; bench/fanout-cpu.ts).
   */
  fresh(): string | null;
  /**
   * FCM answered 401 for `rejected`: forget it so the next get() exchanges again. A no-op when the cache already
   * holds another token, so many requests rejected together cause one exchange.
   */
  invalidate(rejected: string): void;
}

interface TokenAnswer {
  status: number;
  body: string;
}

export function createFcmAccessToken(options: FcmAccessTokenOptions): FcmAccessToken {
  const { account, clock } = options;
  const timeoutMs = options.timeoutMs ?? 15_000;
  let cached: { token: string; refreshAt: number } | null = null;
  let inFlight: Promise<string> | null = null;

  async function exchange(): Promise<string> {
    const iat = Math.floor(clock.now() / 1000);
    const assertion = await new SignJWT({ scope: FCM_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(account.privateKeyId ? { kid: account.privateKeyId } : {}) })
      .setIssuer(account.clientEmail)
      .setAudience(account.tokenUri)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ASSERTION_LIFETIME_SECONDS)
      .sign(account.privateKey);
    const form = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString();
    let answer: TokenAnswer;
    try {
      answer = await postForm(form);
    } catch (error) {
      // fetch wraps the socket error in `cause`; node:https reports it directly.
      const code = ((error as { cause?: NodeJS.ErrnoException }).cause ?? (error as NodeJS.ErrnoException)).code;
      if (isTlsTrustError(code))
        throw new FcmTokenError(
          'credentials',
          `the TLS certificate of token_uri ${account.tokenUri} does not verify (${code})`,
        );
      throw new FcmTokenError(
        'transient',
        `token exchange with ${account.tokenUri} failed: ${code ? `${code} ` : ''}${(error as Error).message}`,
      );
    }
    const parsed = parseJson(answer.body);
    if (answer.status === 200 && typeof parsed.access_token === 'string') {
      const expiresIn = typeof parsed.expires_in === 'number' ? parsed.expires_in : ASSERTION_LIFETIME_SECONDS;
      // Measured from the request's start (iat), not its end, so a slow answer errs on the early side.
      cached = {
        token: parsed.access_token,
        refreshAt: iat * 1000 + Math.max(0, expiresIn * 1000 - REFRESH_MARGIN_MS),
      };
      return parsed.access_token;
    }
    const detail = `${answer.status} ${String(parsed.error ?? '')} ${String(parsed.error_description ?? '')}`.trim();
    // RFC 6749 §5.2: 400/401 invalid_grant, invalid_client, unauthorized_client, invalid_scope are about the
    // credentials (deleted key, disabled account, bad clock); 429 and 5xx are Google's side.
    if (answer.status === 429 || answer.status >= 500)
      throw new FcmTokenError('transient', `token exchange answered ${detail}`);
    throw new FcmTokenError('credentials', `Google refused the service account's token request (${detail})`);
  }

  function postForm(form: string): Promise<TokenAnswer> {
    const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (options.ca === undefined || options.fetch) {
      const fetchFn = options.fetch ?? fetch;
      return fetchFn(account.tokenUri, {
        method: 'POST',
        headers,
        body: form,
        signal: AbortSignal.timeout(timeoutMs),
      }).then(async (response) => ({
        status: response.status,
        body: await response.text(),
      }));
    }
    return new Promise<TokenAnswer>((resolve, reject) => {
      // agent: false → a connection of its own, closed after the answer: one exchange per 55 minutes gains nothing
      // from keep-alive, and a pooled idle socket would outlive close().
      const req = httpsRequest(
        account.tokenUri,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': Buffer.byteLength(form) },
          ca: options.ca,
          timeout: timeoutMs,
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(form);
    });
  }

  return {
    fresh() {
      return cached && clock.now() < cached.refreshAt ? cached.token : null;
    },
    async get() {
      if (cached && clock.now() < cached.refreshAt) return cached.token;
      inFlight ??= exchange().finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
    invalidate(rejected) {
      if (cached?.token === rejected) cached = null;
    },
  };
}

function parseJson(body: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
