import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { newId } from '../domain/ids.ts';
import { ApiError } from './api-error.ts';

/**
 * Node's HTTP parser refuses some requests before Fastify makes a request of them (a NUL or other forbidden byte in a
 * header, headers over the 16 KiB limit, a request line that is not HTTP, a client too slow to send its headers).
 * Fastify's default answer to those is its own JSON shape; this is its `clientErrorHandler`, answering in the error
 * envelope with a catalog code instead, so a client never meets a second error format.
 * Error codes: https://nodejs.org/api/errors.html#node-js-error-codes and llhttp's HPE_* list.
 */
export function clientErrorFor(error: { code?: unknown }): ApiError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout');
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('headers_too_large');
    default:
      return new ApiError('bad_request');
  }
}

export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // As Node's own default does: when a response already started on this connection, writing another would corrupt it.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const apiError = clientErrorFor(error);
    const requestId = newId('request');
    const body = JSON.stringify({
      success: false,
      error: { code: apiError.code, message: apiError.message, requestId },
    });
    socket.write(
      `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
