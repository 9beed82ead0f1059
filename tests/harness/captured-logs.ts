import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** A pino logger at `info` whose lines land, parsed, in `logs`: tests assert on what a worker said. */
export function capturingLogger(): { logger: Logger; logs: Array<Record<string, unknown>> } {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
        done();
      },
    }),
  );
  return { logger, logs };
}
