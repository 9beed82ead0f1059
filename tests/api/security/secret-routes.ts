import { expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, type DashboardSession } from '../../harness/dashboard-session.ts';
import type { TestApp } from '../../harness/test-app.ts';
import { PUBLIC_URL } from '../../webhooks/webhook-harness.ts';

/** A route whose answer carries a secret, and how to call it as a dashboard session (which acts like a secret key). */
export interface SecretRoute {
  name: string;
  method: 'GET' | 'POST';
  status: number;
  /** Creates what the route needs (a key, a webhook) and returns its URL and body. */
  prepare(t: TestApp, user: DashboardSession): Promise<{ url: string; body?: unknown }>;
  /** The secret as the response shows it. */
  secretOf(data: any): string;
}

async function createWebhook(t: TestApp, user: DashboardSession): Promise<string> {
  return expectSuccess(await sessionCall(t, 'POST', '/api/v1/webhooks', user, { body: { url: PUBLIC_URL } }), 201).id;
}

async function createKey(t: TestApp, user: DashboardSession): Promise<string> {
  return expectSuccess(await sessionCall(t, 'POST', '/api/v1/keys', user, { body: { name: 'to rotate' } }), 201).id;
}

/** Every route that shows a secret: the API key value (clr_sk_…) or a webhook signing secret (whsec_…). */
export const secretRoutes: SecretRoute[] = [
  {
    name: 'POST /keys',
    method: 'POST',
    status: 201,
    prepare: async () => ({ url: '/api/v1/keys', body: { name: 'backend' } }),
    secretOf: (data) => data.key,
  },
  {
    name: 'POST /keys/{id}/rotate',
    method: 'POST',
    status: 201,
    prepare: async (t, user) => ({
      url: `/api/v1/keys/${await createKey(t, user)}/rotate`,
      body: { graceSeconds: 60 },
    }),
    secretOf: (data) => data.key.key,
  },
  {
    name: 'POST /webhooks',
    method: 'POST',
    status: 201,
    prepare: async () => ({ url: '/api/v1/webhooks', body: { url: PUBLIC_URL } }),
    secretOf: (data) => data.secret,
  },
  {
    name: 'POST /webhooks/{id}/rotate-secret',
    method: 'POST',
    status: 200,
    prepare: async (t, user) => ({
      url: `/api/v1/webhooks/${await createWebhook(t, user)}/rotate-secret`,
      body: { graceSeconds: 60 },
    }),
    secretOf: (data) => data.secret,
  },
  {
    name: 'GET /webhooks/{id}/secret',
    method: 'GET',
    status: 200,
    prepare: async (t, user) => ({ url: `/api/v1/webhooks/${await createWebhook(t, user)}/secret` }),
    secretOf: (data) => data.secret,
  },
];
