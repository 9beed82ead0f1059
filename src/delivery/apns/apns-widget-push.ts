/**
 * The WidgetKit push (iOS 26, docs/protocols.md 2.6): what tells a device that the app's widgets' content changed, so
 * WidgetKit reloads their timelines. Pure.
 *
 *   POST /3/device/<widget push token>
 *   apns-push-type: widgets
 *   apns-topic: <bundle id>.push-type.widgets
 *   apns-priority: 5
 *   apns-expiration: 0
 *   {"aps": {"content-changed": true}}
 */
export const APNS_WIDGET_PAYLOAD = JSON.stringify({ aps: { 'content-changed': true } });

/** `bundleTopic` is the app's bundle id (CLARION_APNS_TOPIC, or the app's own); widget pushes add `.push-type.widgets`. */
export function apnsWidgetTopic(bundleTopic: string): string {
  return `${bundleTopic}.push-type.widgets`;
}

/**
 * Apple's article names the push type, the topic and the payload, and no priority or expiration (docs/protocols.md
 * 2.6). The conservative reading of each:
 * - priority 5: the push shows nothing and WidgetKit spends the app's reload budget on it, like a background push,
 *   for which 10 is an error (docs/protocols.md 1.3); APNs refuses 5 for no push type;
 * - expiration 0: one attempt, never stored. APNs keeps one undelivered push per app for an offline device
 *   (docs/protocols.md 1.3), and a stored reload must not take the place of an alert the person should see; a widget
 *   that missed it reloads on its own timeline anyway.
 */
export function buildApnsWidgetHeaders(bundleTopic: string): Record<string, string> {
  return {
    'apns-push-type': 'widgets',
    'apns-topic': apnsWidgetTopic(bundleTopic),
    'apns-priority': '5',
    'apns-expiration': '0',
  };
}
