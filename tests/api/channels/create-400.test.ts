import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectValidation } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/channels → 400 validation_failed', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['no code', { name: 'News' }, ['code']],
    ['an upper-case code', { code: 'News' }, ['code']],
    ['a code starting with "-"', { code: '-news' }, ['code']],
    ['a code starting with "_"', { code: '_news' }, ['code']],
    ['a code of 65 characters', { code: 'a'.repeat(65) }, ['code']],
    ['a code with a space', { code: 'big news' }, ['code']],
    ['a code with a dot', { code: 'news.eu' }, ['code']],
    ['an empty code', { code: '' }, ['code']],
    ['a code that is a number', { code: 7 }, ['code']],
    ['an empty name', { code: 'news', name: '' }, ['name']],
    ['a name of 101 characters', { code: 'news', name: 'n'.repeat(101) }, ['name']],
    ['a description of 501 characters', { code: 'news', description: 'd'.repeat(501) }, ['description']],
    ['an unknown field', { code: 'news', colour: 'blue' }, ['colour']],
    ['a frequency cap of 0', { code: 'news', frequencyCap: { count: 0, periodSeconds: 60 } }, ['frequencyCap']],
    [
      'quiet hours that start as they end',
      { code: 'news', quietHours: { start: '08:00', end: '08:00' } },
      ['quietHours.end'],
    ],
  ])('refuses %s, naming the field, and creates nothing', async (_name, body, fields) => {
    const account = await t.newAccount();
    const before = await accountState(t, account.id);
    const [problem] = expectValidation(await post(t.app, '/api/v1/channels', account.secretKey, body), fields);
    if (fields[0] === 'code' && typeof body.code === 'string')
      expect(problem!.message).toMatch(/lower-case letters, digits/);
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
