import { IdParams } from '../../schemas.ts';
import { findWebhookEndpoint, type WebhookEndpoint } from '../../../store/webhooks-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';

/** Path parameter of the /webhooks/{id} routes. */
export const WebhookIdParams = IdParams('webhook');

/**
 * Webhooks report events of every channel of the account, so only a secret key without a channel scope (or a
 * dashboard session) may see or manage them: a channel-scoped key would otherwise learn about other channels.
 * Checked before any lookup, so the answer does not depend on whether the webhook exists.
 */
export function assertWebhookManager(auth: AuthContext): void {
  if (auth.channels !== null) {
    throw new ApiError('forbidden', {
      message: 'Webhooks report events of every channel: manage them with a secret key that has no channel scope.',
    });
  }
}

/** The caller's webhook, or 404 not_found (also for another account's id). */
export async function loadWebhook(deps: AppDependencies, auth: AuthContext, id: string): Promise<WebhookEndpoint> {
  assertWebhookManager(auth);
  const endpoint = await findWebhookEndpoint(deps.store.db, auth.accountId, id);
  if (!endpoint) throw new ApiError('not_found', { message: 'No webhook with that id.' });
  return endpoint;
}

/** 409 conflict for sending to a disabled endpoint, saying why it is disabled and how to re-enable it. */
export function assertEnabled(endpoint: WebhookEndpoint): void {
  if (endpoint.status === 'enabled') return;
  throw new ApiError('conflict', {
    message: `This webhook endpoint is disabled (${endpoint.disabled_reason ?? 'no reason recorded'}); re-enable it with POST /api/v1/webhooks/${endpoint.id}/enable first.`,
    details: { webhookId: endpoint.id, status: endpoint.status, disabledReason: endpoint.disabled_reason },
  });
}
