import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, patch } from '../../harness/requests.ts';
import { subscribe, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('PATCH /api/v1/subscribers/:id with a bad widgetPushToken → 400', () => {
  it.each([
    ['an Android subscriber', 'android', (): string => tokens.ios(), 'only iOS subscribers have a widget push token'],
    ['a web subscriber', 'web', (): string => tokens.ios(), 'only iOS subscribers have a widget push token'],
    ['a token that is not hex', 'ios', (): string => 'not-a-token', 'hex'],
  ] as const)(
    'refuses it for %s and changes nothing, the other fields included',
    async (_name, platform, value, message) => {
      const account = await t.newAccount({ channels: ['news'] });
      const id = await subscribe(t.app, account.publishableKey, 'news', platform, { externalId: 'alice' });
      const before = expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200);
      const error = expectError(
        await patch(t.app, `/api/v1/subscribers/${id}`, account.secretKey, { widgetPushToken: value(), tags: ['vip'] }),
        'validation_failed',
      );
      const problem = error.details.fields.find((field: { field: string }) => field.field === 'widgetPushToken');
      expect(problem?.message).toContain(message);
      expect(expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200)).toEqual(before);
    },
  );
});
