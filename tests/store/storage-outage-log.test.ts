import { describe, expect, it } from 'vitest';
import { StorageOutageLog } from '../../src/store/storage-outage-log.ts';
import { capturingLogger } from '../harness/captured-logs.ts';

describe('StorageOutageLog', () => {
  it('says when an outage begins and when it ends, not at every failed pass, and leaves other errors to the caller', () => {
    const { logger, logs } = capturingLogger();
    const outage = new StorageOutageLog(logger, { down: 'down', back: 'back' });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

    outage.succeeded();
    expect(outage.failed(refused)).toBe(true);
    expect(outage.failed(refused)).toBe(true);
    expect(outage.failed(new Error('a bug'))).toBe(false);
    outage.succeeded();
    outage.succeeded();
    expect(outage.failed(refused)).toBe(true);

    expect(logs.map(({ level, msg }) => [level, msg])).toEqual([
      [40, 'down'],
      [30, 'back'],
      [40, 'down'],
    ]);
    expect(logs[0]).toMatchObject({ err: { message: 'connect ECONNREFUSED 127.0.0.1:5432' } });
  });
});
