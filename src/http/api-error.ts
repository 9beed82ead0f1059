import { errorCatalog, type ErrorCode } from './error-catalog.ts';

/** An error with a catalog code: thrown by handlers, turned into the error envelope by the error handler. */
export class ApiError extends Error {
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    options: { message?: string; details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(options.message ?? errorCatalog[code].message);
    this.name = 'ApiError';
    this.status = errorCatalog[code].status;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

/** validation_failed for checks a schema cannot express (e.g. "title or body"), in the same shape as schema errors. */
export function validationFailed(fields: Array<{ field: string; message: string }>): ApiError {
  return new ApiError('validation_failed', { details: { fields } });
}
