import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { widgetDispatchJobs } from './widget-requests.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/widgets/reload → 400', () => {
  it.each([
    [{}, 'channelCode'],
    [{ channelCode: 42 }, 'channelCode'],
    [{ channelCode: 'not a code!' }, 'channelCode'],
    [{ channelCode: 'news', title: 'Hi' }, 'title'],
  ])('refuses %j, queuing and charging nothing', async (body, field) => {
    const account = await t.newAccount({ channels: ['news'] });
    const before = await accountState(t, account.id);
    const error = expectError(
      await post(t.app, '/api/v1/widgets/reload', account.secretKey, body),
      'validation_failed',
    );
    expect(error.details.fields.map((problem: { field: string }) => problem.field).join(' ')).toContain(field);
    expect(await accountState(t, account.id)).toEqual(before);
    expect(await widgetDispatchJobs(t, account.id)).toEqual([]);
  });
});
