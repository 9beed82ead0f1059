import type { TestApp } from '../../harness/test-app.ts';
import { insertWebhookFixture, PUBLIC_URL } from '../../webhooks/webhook-harness.ts';

/**
 * Every webhook POST route with a real target in a fresh account and a valid body (undefined: the route takes
 * none), for the body-level rules every POST obeys (bad JSON, 64 KiB, content type, Idempotency-Key).
 */
export interface WebhookPostRoute {
  name: string;
  path: string;
  body: Record<string, unknown> | undefined;
  /** Another valid body (for Idempotency-Key mismatches). */
  otherBody: Record<string, unknown>;
  /** The answer shows the signing secret, so it is never kept for an Idempotency-Key replay. */
  showsSecret: boolean;
}

export async function webhookPostRoutes(t: TestApp, accountId: string): Promise<WebhookPostRoute[]> {
  const { webhook, webhookMessage } = await insertWebhookFixture(t, accountId);
  return [
    {
      name: 'POST /webhooks',
      path: '/api/v1/webhooks',
      body: { url: PUBLIC_URL },
      otherBody: { url: PUBLIC_URL, description: 'another' },
      showsSecret: true,
    },
    {
      name: 'POST /webhooks/:id/rotate-secret',
      path: `/api/v1/webhooks/${webhook}/rotate-secret`,
      body: { graceSeconds: 60 },
      otherBody: { graceSeconds: 120 },
      showsSecret: true,
    },
    {
      name: 'POST /webhooks/:id/test',
      path: `/api/v1/webhooks/${webhook}/test`,
      body: undefined,
      otherBody: { note: 'another body' },
      showsSecret: false,
    },
    {
      name: 'POST /webhooks/:id/enable',
      path: `/api/v1/webhooks/${webhook}/enable`,
      body: undefined,
      otherBody: { note: 'another body' },
      showsSecret: false,
    },
    {
      name: 'POST /webhook-messages/:id/retry',
      path: `/api/v1/webhook-messages/${webhookMessage}/retry`,
      body: undefined,
      otherBody: { note: 'another body' },
      showsSecret: false,
    },
  ];
}
