import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectValidation } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { insertWebhookFixture, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

async function secretRow(id: string) {
  return t.store.db
    .selectFrom('webhook_endpoints')
    .select(['secret', 'previous_secret'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

describe('POST /api/v1/webhooks/:id/rotate-secret → 400', () => {
  it.each([
    ['a negative grace period', { graceSeconds: -1 }, ['graceSeconds']],
    ['a grace period over 7 days', { graceSeconds: 604_801 }, ['graceSeconds']],
    ['a fractional grace period', { graceSeconds: 1.5 }, ['graceSeconds']],
    ['a grace period as text', { graceSeconds: '60' }, ['graceSeconds']],
    ['an unknown field', { secret: 'whsec_mine' }, ['secret']],
  ])('refuses %s and keeps the secret', async (_name, body, fields) => {
    const account = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, account.id);
    const before = await secretRow(webhook);
    const problems = expectValidation(
      await post(t.app, `/api/v1/webhooks/${webhook}/rotate-secret`, account.secretKey, body),
      fields,
    );
    if ('graceSeconds' in body && typeof body.graceSeconds === 'number')
      expect(problems[0]!.message).toBe('must be a whole number of seconds from 0 to 604800 (7 days)');
    expect(await secretRow(webhook)).toEqual(before);
  });

  it('asks for a JSON object when the body is empty (send {} for the defaults)', async () => {
    const account = await t.newAccount();
    const { webhook } = await insertWebhookFixture(t, account.id);
    const before = await secretRow(webhook);
    expectError(await post(t.app, `/api/v1/webhooks/${webhook}/rotate-secret`, account.secretKey), 'invalid_json');
    expect(await secretRow(webhook)).toEqual(before);
  });
});
