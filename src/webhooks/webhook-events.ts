import { toIso } from '../domain/clock.ts';
import type { EventType } from '../store/events-queries.ts';

/**
 * The event types an endpoint can subscribe to (docs/design.md 2.6), and the body every message carries. `["*"]` (the
 * default) subscribes to every type, including types added in later versions. `webhook.test` is not an event: it is
 * sent only by POST /webhooks/{id}/test, to that endpoint, whatever it subscribes to.
 */
export const webhookEventTypes = [
  'subscriber.created',
  'subscriber.unsubscribed',
  'subscriber.deleted',
  'notification.delivered',
  'delivery.failed',
  'notification.opened',
  'notification.action',
  'live_activity.started',
  'live_activity.updated',
  'live_activity.ended',
  'app.credentials_failed',
] as const satisfies readonly EventType[];

// Fails type-checking when an EventType is added to events-queries.ts without being listed above, so it can be subscribed to.
const everyEventTypeListed: Exclude<EventType, (typeof webhookEventTypes)[number]> extends never ? true : never = true;
void everyEventTypeListed;

export const ALL_EVENTS = '*';
export const TEST_EVENT_TYPE = 'webhook.test';

export function subscribesTo(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.includes(ALL_EVENTS) || eventTypes.includes(type);
}

/** The message body, serialized once: retries send exactly these bytes, so the signature covers the same content. */
export function webhookBody(type: string, occurredAt: number, data: unknown): string {
  return JSON.stringify({ type, timestamp: toIso(occurredAt), data });
}
