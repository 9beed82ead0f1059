/**
 * No answer came from Clarion: the connection could not be made or broke (DNS, refused, reset, TLS), or an attempt
 * took longer than the client's `timeoutMs`, on every attempt the retry options allowed. Whether a POST reached the
 * server is unknown; calling again with the same `idempotencyKey` is safe (the server replays the first answer).
 * `cause` is the last attempt's own error.
 */
export class ClarionConnectionError extends Error {
  override name = 'ClarionConnectionError';

  constructor(
    message: string,
    /** True when the last attempt was cut off by `timeoutMs`; false when the connection itself failed. */
    readonly timedOut: boolean,
    /** How many attempts were made, the first included. */
    readonly attempts: number,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}
