import { expect } from 'vitest';
import { errorCatalog, type ErrorCode } from '../../src/http/error-catalog.ts';

/** What the request helpers return: an inject() response with the body parsed. */
export interface ApiResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
}

/**
 * Asserts the error envelope of docs/design.md 2.1 exactly: the catalog status for `code`, only the envelope's keys, a
 * `req_` request id equal to the X-Request-Id header, and the headers the code promises (WWW-Authenticate on 401,
 * Retry-After on rate_limited, the quota headers and details on quota_exceeded). Returns `error` for more checks.
 */
export function expectError(response: ApiResponse, code: ErrorCode): any {
  expect({ status: response.statusCode, code: response.body?.error?.code }).toEqual({
    status: errorCatalog[code].status,
    code,
  });
  expect(Object.keys(response.body).sort()).toEqual(['error', 'success']);
  expect(response.body.success).toBe(false);
  const error = response.body.error;
  expect(Object.keys(error).filter((key) => !['code', 'message', 'details', 'requestId'].includes(key))).toEqual([]);
  expect(error.message).toEqual(expect.any(String));
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.requestId).toMatch(/^req_[0-9a-z]{26}$/);
  expect(response.headers['x-request-id']).toBe(error.requestId);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  if (code === 'unauthorized') expect(response.headers['www-authenticate']).toBe('Bearer');
  if (code === 'rate_limited') expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  if (code === 'quota_exceeded') {
    expect(Object.keys(error.details).sort()).toEqual(['limit', 'plan', 'resetsAt', 'used']);
    expect(response.headers['x-quota-limit']).toBe(String(error.details.limit));
    expect(response.headers['x-quota-remaining']).toBe('0');
  }
  if (code === 'validation_failed') {
    expect(error.details.fields.length).toBeGreaterThan(0);
    for (const problem of error.details.fields) {
      expect(problem).toEqual({ field: expect.any(String), message: expect.any(String) });
    }
  }
  return error;
}

/** validation_failed naming exactly these fields (in any order); returns the `{field, message}` list. */
export function expectValidation(response: ApiResponse, fields: string[]): Array<{ field: string; message: string }> {
  const error = expectError(response, 'validation_failed');
  const named: string[] = error.details.fields.map((problem: { field: string }) => problem.field);
  expect([...new Set(named)].sort()).toEqual([...fields].sort());
  return error.details.fields;
}

/** A success envelope with `status`; returns `data`. */
export function expectSuccess(response: ApiResponse, status: number): any {
  expect({ status: response.statusCode, body: response.body }).toMatchObject({ status, body: { success: true } });
  expect(response.headers['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
  return response.body.data;
}

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
