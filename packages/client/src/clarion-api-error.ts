import type { components } from './api-types.ts';

/** Every error code the API answers with (docs/errors.md), from the OpenAPI document's error envelope. */
export type ErrorCode = components['schemas']['ErrorEnvelope']['error']['code'];

/** The code given to an answer that is not Clarion's error envelope (a proxy's HTML page, an empty 502). */
export const UNEXPECTED_RESPONSE = 'unexpected_response';

/**
 * A refusal or failure answered by the API, carrying what its error envelope says: `code` to branch on, `requestId`
 * to quote when reporting a problem, and `details` (e.g. the fields of a `validation_failed`).
 */
export class ClarionApiError extends Error {
  override name = 'ClarionApiError';

  constructor(
    readonly status: number,
    readonly code: ErrorCode | typeof UNEXPECTED_RESPONSE,
    message: string,
    readonly requestId: string | null,
    readonly details: Record<string, unknown> | undefined,
    /** The wait the server asked for (`Retry-After`, in seconds) when it was too long to wait for; else null. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }

  /** Builds the error from a non-2xx answer and its parsed body (openapi-fetch's `error`). */
  static fromResponse(response: Response, body: unknown): ClarionApiError {
    const retryAfter = response.headers.get('retry-after');
    const retryAfterSeconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : null;
    const envelope = (
      body as { error?: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown } } | null
    )?.error;
    if (envelope && typeof envelope.code === 'string' && typeof envelope.message === 'string') {
      const requestId =
        typeof envelope.requestId === 'string' ? envelope.requestId : response.headers.get('x-request-id');
      const details =
        envelope.details && typeof envelope.details === 'object'
          ? (envelope.details as Record<string, unknown>)
          : undefined;
      return new ClarionApiError(
        response.status,
        envelope.code as ErrorCode,
        envelope.message,
        requestId,
        details,
        retryAfterSeconds,
      );
    }
    return new ClarionApiError(
      response.status,
      UNEXPECTED_RESPONSE,
      `HTTP ${response.status} ${response.statusText || ''}`.trim() + ' without the API error envelope',
      response.headers.get('x-request-id'),
      undefined,
      retryAfterSeconds,
    );
  }
}
