/**
 * What a browser that implements Declarative Web Push makes of a decrypted message: the declarative push message
 * parser of the W3C Push API (https://w3c.github.io/push-api/#declarative-push-message, with the app badge of
 * https://github.com/w3c/push-api/pull/402) as Safari 18.4 ships it (https://webkit.org/blog/16535/meet-declarative-web-push/).
 * A JSON object whose `web_push` member is 8030 is declarative; the browser then needs a `notification` map with a
 * string `title` and a `navigate` URL, and members of the types the Notifications API gives them
 * (https://notifications.spec.whatwg.org/#dictdef-notificationoptions). A message that is not declarative goes to the
 * service worker as a classic push.
 */
export interface DeclarativeMessage {
  notification: Record<string, unknown> & { title: string; navigate: string };
  appBadge: number | null;
  mutable: boolean;
}

export type DeclarativeParse =
  { kind: 'classic' } | { kind: 'declarative'; message: DeclarativeMessage } | { kind: 'invalid'; problem: string };

const STRING_MEMBERS = ['lang', 'body', 'tag'] as const;
const URL_MEMBERS = ['image', 'icon', 'badge'] as const;
const BOOLEAN_MEMBERS = ['renotify', 'silent', 'require_interaction'] as const;

export function parseDeclarativePushMessage(message: unknown): DeclarativeParse {
  if (!isMap(message) || message.web_push !== 8030) return { kind: 'classic' };
  const notification = message.notification;
  if (!isMap(notification)) return invalid('notification must be an object');
  if (typeof notification.title !== 'string') return invalid('notification.title must be a string');
  if (typeof notification.navigate !== 'string' || !isUrl(notification.navigate))
    return invalid('notification.navigate must be a URL');
  for (const name of STRING_MEMBERS)
    if (name in notification && typeof notification[name] !== 'string')
      return invalid(`notification.${name} must be a string`);
  if ('dir' in notification && !['auto', 'ltr', 'rtl'].includes(notification.dir as string))
    return invalid('notification.dir must be auto, ltr or rtl');
  for (const name of URL_MEMBERS)
    if (name in notification && (typeof notification[name] !== 'string' || !isUrl(notification[name] as string)))
      return invalid(`notification.${name} must be a URL`);
  for (const name of BOOLEAN_MEMBERS)
    if (name in notification && typeof notification[name] !== 'boolean')
      return invalid(`notification.${name} must be a boolean`);
  if ('timestamp' in notification && !isUnsignedInteger(notification.timestamp))
    return invalid('notification.timestamp must be an unsigned integer');
  // Notifications API: renotify needs a tag (https://notifications.spec.whatwg.org/#create-a-notification).
  if (notification.renotify === true && !notification.tag) return invalid('notification.renotify needs a tag');
  if ('actions' in notification) {
    const actions = notification.actions;
    if (!Array.isArray(actions)) return invalid('notification.actions must be a list');
    for (const action of actions)
      if (
        !isMap(action) ||
        typeof action.action !== 'string' ||
        typeof action.title !== 'string' ||
        typeof action.navigate !== 'string' ||
        !isUrl(action.navigate)
      )
        return invalid('each of notification.actions needs an action, a title and a navigate URL');
  }
  if ('app_badge' in message && !isUnsignedInteger(message.app_badge))
    return invalid('app_badge must be an unsigned integer');
  if ('mutable' in message && typeof message.mutable !== 'boolean') return invalid('mutable must be a boolean');
  return {
    kind: 'declarative',
    message: {
      notification: notification as DeclarativeMessage['notification'],
      appBadge: 'app_badge' in message ? (message.app_badge as number) : null,
      mutable: message.mutable === true,
    },
  };
}

function invalid(problem: string): DeclarativeParse {
  return { kind: 'invalid', problem };
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isUrl(text: string): boolean {
  return URL.canParse(text);
}

function isUnsignedInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
