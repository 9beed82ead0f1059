import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, patch } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('PATCH /api/v1/subscribers/:id → 400', () => {
  it.each([
    [{ tags: ['has space'] }, 'tags.0'],
    [{ tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }, 'tags'],
    [{ timezone: 'Mars/Olympus' }, 'timezone'],
    [{ timezone: 'EST' }, 'timezone'],
    [{ locale: 'not a locale!' }, 'locale'],
    [{ externalId: '' }, 'externalId'],
    [{ nickname: 'x' }, 'nickname'],
    [{}, '(body)'],
  ])('refuses %j and changes nothing', async (body, field) => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await subscribe(t.app, account.publishableKey, 'news', 'android', { externalId: 'alice' });
    const before = expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200);
    const problems = expectError(
      await patch(t.app, `/api/v1/subscribers/${id}`, account.secretKey, {
        ...body,
        ...(field === 'timezone' ? { tags: ['kept-out'] } : {}),
      }),
      'validation_failed',
    ).details.fields;
    expect(problems.map((problem: any) => problem.field).join(' ')).toContain(field);
    expect(expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200)).toEqual(before);
  });
});
