import Type, { type Static } from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import type { WebhookAttempt, WebhookMessage } from '../../../store/webhook-messages-queries.ts';
import { eventTypesOf, type WebhookEndpoint } from '../../../store/webhooks-queries.ts';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../schemas.ts';

/** The Webhook, WebhookMessage and WebhookAttempt objects (docs/webhooks.md). A secret appears only where named. */
const webhookProperties = {
  id: Type.String({ description: 'whk_… identifier.' }),
  url: Type.String({ description: 'Where messages are POSTed.' }),
  description: Nullable(Type.String()),
  events: Type.Array(Type.String(), {
    description: 'Event types this endpoint receives; ["*"] = every type, including ones added later.',
  }),
  status: StringEnum(['enabled', 'disabled'] as const),
  disabledReason: Nullable(
    Type.String({
      description:
        'Why Clarion disabled the endpoint (410 Gone, or 5 days of failures); POST /webhooks/{id}/enable re-enables it.',
    }),
  ),
  disabledAt: NullableTimestamp,
  failingSince: Nullable(
    Type.String({
      format: 'date-time',
      description: 'Start of the current run of failed attempts; null after a success.',
    }),
  ),
  previousSecretExpiresAt: Nullable(
    Type.String({
      format: 'date-time',
      description: 'After a rotation: until when the previous secret still signs, beside the current one.',
    }),
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const WebhookSchema = Type.Object(webhookProperties, { title: 'Webhook' });

const SecretField = Type.String({
  description: 'The signing secret, whsec_ + base64 (Standard Webhooks). Keep it on your server only.',
});

export const WebhookWithSecretSchema = Type.Object(
  { ...webhookProperties, secret: SecretField },
  { title: 'WebhookWithSecret' },
);

export const WebhookSecretSchema = Type.Object(
  { webhookId: Type.String(), secret: SecretField, previousSecretExpiresAt: webhookProperties.previousSecretExpiresAt },
  { title: 'WebhookSecret' },
);

export const WebhookAttemptSchema = Type.Object(
  {
    attempt: Type.Integer({ description: '1, 2, … for this message.' }),
    kind: StringEnum(['scheduled', 'manual'] as const, {
      description: 'scheduled: by the retry schedule; manual: POST /webhook-messages/{id}/retry.',
    }),
    url: Type.String(),
    statusCode: Nullable(
      Type.Integer({
        description: 'HTTP status of the answer; null when none came (timeout, connection error, refused address).',
      }),
    ),
    durationMs: Type.Integer(),
    responseExcerpt: Nullable(Type.String({ description: 'The first 1 KiB of the response body.' })),
    error: Nullable(
      Type.String({
        description: 'Why the attempt failed when the status does not say it (timeout, refused address, redirect).',
      }),
    ),
    attemptedAt: Timestamp,
  },
  { title: 'WebhookAttempt' },
);

export const WebhookMessageSchema = Type.Object(
  {
    id: Type.String({ description: 'msg_… identifier: the webhook-id header of every attempt.' }),
    webhookId: Type.String(),
    eventId: Nullable(Type.String({ description: 'The event reported; null for a test message.' })),
    eventType: Type.String(),
    status: StringEnum(['pending', 'delivered', 'failed'] as const, {
      description:
        'Outcome of the latest attempt: pending while an attempt is queued, delivered after a 2xx, failed when no attempt remains.',
    }),
    attemptCount: Type.Integer(),
    nextAttemptAt: NullableTimestamp,
    deliveredAt: NullableTimestamp,
    createdAt: Timestamp,
    payload: Type.Object(
      { type: Type.String(), timestamp: Type.String(), data: Type.Unknown() },
      { description: 'The body sent (the same bytes on every attempt).' },
    ),
    attempts: Type.Array(WebhookAttemptSchema),
  },
  { title: 'WebhookMessage' },
);

const isoOrNull = (ms: number | null) => (ms === null ? null : toIso(ms));

export function webhookView(endpoint: WebhookEndpoint, now: number): Static<typeof WebhookSchema> {
  const graceLasts = endpoint.previous_secret_expires_at !== null && endpoint.previous_secret_expires_at > now;
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: eventTypesOf(endpoint),
    status: endpoint.status,
    disabledReason: endpoint.disabled_reason,
    disabledAt: isoOrNull(endpoint.disabled_at),
    failingSince: isoOrNull(endpoint.failing_since),
    previousSecretExpiresAt: graceLasts ? isoOrNull(endpoint.previous_secret_expires_at) : null,
    createdAt: toIso(endpoint.created_at),
    updatedAt: toIso(endpoint.updated_at),
  };
}

export function webhookAttemptView(attempt: WebhookAttempt): Static<typeof WebhookAttemptSchema> {
  return {
    attempt: attempt.attempt,
    kind: attempt.kind,
    url: attempt.url,
    statusCode: attempt.status_code,
    durationMs: attempt.duration_ms,
    responseExcerpt: attempt.response_excerpt,
    error: attempt.error,
    attemptedAt: toIso(attempt.attempted_at),
  };
}

export function webhookMessageView(
  message: WebhookMessage,
  attempts: WebhookAttempt[],
): Static<typeof WebhookMessageSchema> {
  return {
    id: message.id,
    webhookId: message.endpoint_id,
    eventId: message.event_id,
    eventType: message.event_type,
    status: message.status,
    attemptCount: message.attempt_count,
    nextAttemptAt: isoOrNull(message.next_attempt_at),
    deliveredAt: isoOrNull(message.delivered_at),
    createdAt: toIso(message.created_at),
    payload: JSON.parse(message.payload) as Static<typeof WebhookMessageSchema>['payload'],
    attempts: attempts.map(webhookAttemptView),
  };
}
