import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { sentReceipt } from './receipts-fixture.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ publishableRateLimitPerAddress: 1, publishableRateLimitBurst: 2 });
});
afterAll(async () => t.close());

describe('POST /api/v1/receipts → 429 rate_limited', () => {
  it('limits reports per client address, as an install of an app is limited, and lets them through again', async () => {
    const { receipt } = await sentReceipt(t);
    const report = () => post(t.app, '/api/v1/receipts', null, { receipt, event: 'opened' });
    expectSuccess(await report(), 202);
    expectSuccess(await report(), 202);
    const limited = await report();
    expect(expectError(limited, 'rate_limited').details).toEqual({ retryAfterSeconds: 1 });
    expect(limited.headers['retry-after']).toBe('1');
    t.clock.advance(1_000);
    expectSuccess(await report(), 202);
  });
});
