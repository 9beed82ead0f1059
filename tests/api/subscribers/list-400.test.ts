import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/subscribers → 400', () => {
  it.each([
    ['platform=windows', 'platform'],
    ['status=gone', 'status'],
    ['cursor=ntf_00000000000000000000000000', 'cursor'],
    ['createdAfter=yesterday', 'createdAfter'],
    ['createdBefore=2026-01-01T00:00:00', 'createdBefore'],
    ['limit=0', 'limit'],
    ['color=blue', 'color'],
    ['externalId=a%00b', 'externalId'],
    ['tag=%00', 'tag'],
    ['idPrefix=ntf_01', 'idPrefix'],
  ])('refuses %s', async (query, field) => {
    const account = await t.newAccount({ channels: ['news'] });
    const problems = expectError(
      await get(t.app, `/api/v1/subscribers?${query}`, account.secretKey),
      'validation_failed',
    ).details.fields;
    expect(problems.map((problem: any) => problem.field).join(' ')).toContain(field);
  });
});
