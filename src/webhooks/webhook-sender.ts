import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import {
  guardedLookup,
  hostOf,
  refuseLiteralHost,
  systemResolver,
  type ResolveHost,
  type OutboundUrlPolicy,
} from '../net/outbound-url-guard.ts';

/**
 * The HTTP side of one delivery attempt: POST the signed body, wait at most `timeoutMs` (15 s by default,
 * CLARION_WEBHOOK_TIMEOUT, the least of Standard Webhooks' 15–30 s), never follow a redirect, keep the first 1 KiB of the answer. Never throws: every
 * failure becomes the attempt's `error`, which the message log shows.
 *
 * Each attempt opens its own connection (no keep-alive pool): attempts to one endpoint are seconds to hours apart,
 * and a fresh connection is always made to an address the SSRF guard has just checked.
 */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface WebhookSendResult {
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
  /** The Retry-After header, if the receiver sent one. */
  retryAfter: string | null;
}

export interface WebhookSender {
  send(request: {
    url: string;
    headers: Record<string, string>;
    body: string;
    signal: AbortSignal;
  }): Promise<WebhookSendResult>;
}

export interface WebhookSenderOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  resolve?: ResolveHost;
}

const USER_AGENT = 'Clarion-Webhooks/1 (+https://www.standardwebhooks.com)';

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const policy: OutboundUrlPolicy = { allowPrivate: options.allowPrivate, resolve: options.resolve ?? systemResolver };
  const lookup = guardedLookup(policy);
  return {
    async send({ url, headers, body, signal }) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const failed = (error: string): WebhookSendResult => ({
        statusCode: null,
        durationMs: elapsed(),
        responseExcerpt: null,
        error,
        retryAfter: null,
      });
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return failed('the URL is not valid');
      }
      // IP-literal hosts never reach `lookup` (sockets connect to them directly), so they are judged here.
      const refusal = options.allowPrivate ? null : refuseLiteralHost(hostOf(target));
      if (refusal) return failed(refusal);

      const timeout = AbortSignal.timeout(options.timeoutMs);
      const aborted = AbortSignal.any([signal, timeout]);
      return new Promise<WebhookSendResult>((resolve) => {
        let settled = false;
        const settle = (result: WebhookSendResult) => {
          if (settled) return;
          settled = true;
          resolve(result);
        };
        const transport = target.protocol === 'https:' ? https : http;
        const request = transport.request(target, {
          method: 'POST',
          headers: { ...headers, 'user-agent': USER_AGENT, 'content-length': String(Buffer.byteLength(body)) },
          agent: false,
          lookup,
          signal: aborted,
        });
        request.on('response', (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const finish = () => {
            const statusCode = response.statusCode ?? null;
            const location = response.headers.location;
            settle({
              statusCode,
              durationMs: elapsed(),
              responseExcerpt: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8'),
              error:
                statusCode !== null && statusCode >= 300 && statusCode < 400
                  ? `redirect not followed${location ? ` (Location: ${location.slice(0, 200)})` : ''}: answer 2xx at the registered URL`
                  : null,
              retryAfter: typeof response.headers['retry-after'] === 'string' ? response.headers['retry-after'] : null,
            });
            response.destroy();
          };
          response.on('data', (chunk: Buffer) => {
            if (size < RESPONSE_EXCERPT_BYTES) chunks.push(chunk);
            size += chunk.length;
            // The status is what counts: stop reading once the excerpt is full.
            if (size >= RESPONSE_EXCERPT_BYTES) finish();
          });
          response.on('end', finish);
          // The answer's status is known even if its body is cut off (timeout, reset): keep what arrived.
          response.on('error', finish);
          response.on('aborted', finish);
        });
        request.on('error', (error: NodeJS.ErrnoException) => {
          if (timeout.aborted) settle(failed(`timeout: no answer within ${options.timeoutMs} ms`));
          else if (signal.aborted) settle(failed('aborted: the worker is shutting down'));
          else settle(failed(describeError(error)));
        });
        request.end(body);
      });
    },
  };
}

function describeError(error: NodeJS.ErrnoException): string {
  if (error.code === 'EADDRESSREFUSED') return error.message;
  if (error.code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED)';
  if (error.code === 'ECONNRESET') return 'connection reset by the receiver (ECONNRESET)';
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN')
    return error.message.startsWith('the host') ? error.message : `the host does not resolve (${error.code})`;
  return error.code ? `${error.message} (${error.code})` : error.message;
}
