import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { PUBLIC_URL } from '../../webhooks/webhook-harness.ts';
import { secretRoutes } from '../security/secret-routes.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ allowPrivateWebhooks: false });
});
afterAll(async () => t.close());

const idempotencyKey = (name: string) => ({ 'idempotency-key': `${name}-${Math.random().toString(36).slice(2)}` });

async function idempotencyRows(accountId: string) {
  return t.store.db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', accountId).execute();
}

async function madeRows(accountId: string) {
  const keys = await t.store.db.selectFrom('api_keys').select('id').where('account_id', '=', accountId).execute();
  const webhooks = await t.store.db
    .selectFrom('webhook_endpoints')
    .select(['id', 'secret'])
    .where('account_id', '=', accountId)
    .execute();
  return { keys: keys.length, webhooks };
}

describe('Idempotency-Key on a route whose response shows a secret', () => {
  it.each(secretRoutes.filter((route) => route.method === 'POST').map((route) => [route.name, route] as const))(
    '%s: the secret is never stored in idempotency_keys, and a replay answers 409 idempotency_not_replayable',
    async (_name, route) => {
      const user = await signUp(t);
      const { url, body } = await route.prepare(t, user);
      const headers = idempotencyKey('secret');
      const first = await sessionCall(t, 'POST', url, user, { body, headers });
      const secret = route.secretOf(expectSuccess(first, route.status));

      const rows = await idempotencyRows(user.accountId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status_code: route.status, response_body: null });
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain(secret);
      expect(stored).not.toMatch(/clr_sk_|whsec_/);

      const before = await madeRows(user.accountId);
      const replay = await sessionCall(t, 'POST', url, user, { body, headers });
      const error = expectError(replay, 'idempotency_not_replayable');
      expect(error.message).toMatch(/secret/);
      expect(replay.headers['idempotency-replay']).toBeUndefined();
      expect(JSON.stringify(replay.body)).not.toMatch(/clr_sk_|whsec_/);
      // The replay did nothing: no second key or webhook, no second secret rotation.
      expect(await madeRows(user.accountId)).toEqual(before);
    },
  );

  it('POST /webhooks with an API key: the same, and another body with the same key is still idempotency_mismatch', async () => {
    const account = await t.newAccount();
    const headers = idempotencyKey('webhook');
    const created = expectSuccess(
      await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL }, headers),
      201,
    );
    expect(JSON.stringify(await idempotencyRows(account.id))).not.toContain(created.secret);
    expectError(
      await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL }, headers),
      'idempotency_not_replayable',
    );
    expectError(
      await post(t.app, '/api/v1/webhooks', account.secretKey, { url: `${PUBLIC_URL}/other` }, headers),
      'idempotency_mismatch',
    );
    expect((await madeRows(account.id)).webhooks).toHaveLength(1);
  });

  it('still replays a response that shows no secret (POST /webhooks/{id}/enable)', async () => {
    const account = await t.newAccount();
    const webhook = expectSuccess(await post(t.app, '/api/v1/webhooks', account.secretKey, { url: PUBLIC_URL }), 201);
    const headers = idempotencyKey('enable');
    const first = await post(t.app, `/api/v1/webhooks/${webhook.id}/enable`, account.secretKey, {}, headers);
    const again = await post(t.app, `/api/v1/webhooks/${webhook.id}/enable`, account.secretKey, {}, headers);
    expect({ status: again.statusCode, replay: again.headers['idempotency-replay'], body: again.body }).toEqual({
      status: first.statusCode,
      replay: 'true',
      body: first.body,
    });
  });
});
