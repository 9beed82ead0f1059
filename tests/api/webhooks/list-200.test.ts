import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { PUBLIC_URL, startWebhookApp } from '../../webhooks/webhook-harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startWebhookApp();
});
afterAll(async () => t.close());

async function create(key: string, n: number): Promise<string> {
  return (await post(t.app, '/api/v1/webhooks', key, { url: `${PUBLIC_URL}/${n}`, description: `hook ${n}` })).body.data
    .id;
}

describe('GET /api/v1/webhooks → 200', () => {
  it("lists the account's endpoints in creation order, without their secrets", async () => {
    const account = await t.newAccount();
    const ids = [await create(account.secretKey, 1), await create(account.secretKey, 2)];
    const response = await get(t.app, '/api/v1/webhooks', account.secretKey);
    const data = expectSuccess(response, 200);
    expect(data.map((item: any) => item.id)).toEqual(ids);
    expect(data[1]).toMatchObject({ url: `${PUBLIC_URL}/2`, description: 'hook 2', events: ['*'], status: 'enabled' });
    expect(JSON.stringify(response.body)).not.toContain('whsec_');
    expect(data.every((item: any) => !('secret' in item))).toBe(true);
    expect(response.body.nextCursor).toBeNull();
  });

  it('answers an empty list for an account without webhooks, and never lists another account’s', async () => {
    const other = await t.newAccount();
    await create(other.secretKey, 1);
    const account = await t.newAccount();
    const response = await get(t.app, '/api/v1/webhooks', account.secretKey);
    expect(expectSuccess(response, 200)).toEqual([]);
    expect(response.body.nextCursor).toBeNull();
  });

  it('pages with limit and nextCursor', async () => {
    const account = await t.newAccount();
    const ids = [];
    for (let n = 0; n < 5; n += 1) ids.push(await create(account.secretKey, n));
    const first = await get(t.app, '/api/v1/webhooks?limit=2', account.secretKey);
    expect(first.body.data.map((item: any) => item.id)).toEqual(ids.slice(0, 2));
    const second = await get(t.app, `/api/v1/webhooks?limit=2&cursor=${first.body.nextCursor}`, account.secretKey);
    expect(second.body.data.map((item: any) => item.id)).toEqual(ids.slice(2, 4));
    const third = await get(t.app, `/api/v1/webhooks?limit=2&cursor=${second.body.nextCursor}`, account.secretKey);
    expect(third.body.data.map((item: any) => item.id)).toEqual(ids.slice(4));
    expect(third.body.nextCursor).toBeNull();
  });
});
