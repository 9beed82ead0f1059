import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectValidation } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/channels/:code/update → 400', () => {
  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ description: 'x'.repeat(501) }, 'description'],
    [{ joinPage: 'yes' }, 'joinPage'],
    [{ code: 'other' }, 'code'],
    [{ frequencyCap: { count: 0, periodSeconds: 3600 } }, 'frequencyCap'],
    [{ frequencyCap: { count: 3, periodSeconds: 59 } }, 'frequencyCap'],
    [{ frequencyCap: { count: 3, periodSeconds: 2_592_001 } }, 'frequencyCap'],
    [{ frequencyCap: { count: 3 } }, 'frequencyCap'],
    [{ frequencyCap: { count: 3, periodSeconds: 3600, perUser: true } }, 'frequencyCap'],
    [{ quietHours: { start: '22:00', end: '7:00' } }, 'quietHours'],
    [{ quietHours: { start: '24:00', end: '07:00' } }, 'quietHours'],
    [{ quietHours: { start: '22:00' } }, 'quietHours'],
    [{ quietHours: { start: '22:00', end: '22:00' } }, 'quietHours.end'],
  ])('refuses %j naming %s, changing nothing', async (body, field) => {
    const account = await t.newAccount({ channels: ['news'] });
    expectValidation(await post(t.app, '/api/v1/channels/news/update', account.secretKey, body), [field]);
    expect((await get(t.app, '/api/v1/channels/news', account.secretKey)).body.data).toMatchObject({
      code: 'news',
      name: 'news',
      joinPage: false,
      frequencyCap: null,
      quietHours: null,
    });
  });

  it('refuses a code that is not a channel code', async () => {
    const account = await t.newAccount();
    expectValidation(await post(t.app, '/api/v1/channels/News!/update', account.secretKey, {}), ['code']);
  });
});
