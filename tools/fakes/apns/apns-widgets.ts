import type { Checked } from './apns-request-rules.ts';

/**
 * WidgetKit pushes (iOS 26; docs/protocols.md 2.6): `apns-push-type: widgets` to the widget push token WidgetKit hands
 * the app, topic `<bundle id>.push-type.widgets` (the topic rule lives with the others, apns-request-rules.ts), and a
 * payload whose `aps` says only that the content changed:
 *
 *   {"aps": {"content-changed": true}}
 *
 * Sources: https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications
 * (WidgetKit reloads the app's timelines on such a push, as `reloadAllTimelines()` does) and the request Apple's
 * article describes as quoted in https://developer.apple.com/forums/thread/791676 (headers and that body).
 */

/**
 * The payload rule: `aps` is an object holding `content-changed: true`, and nothing the device would show or wake the
 * app for (`alert`, `sound`, `badge`, `content-available`): a widget push reloads timelines and shows nothing. What APNs
 * answers to another body is not documented (docs/protocols.md 7, q14); the fake refuses it with its own `BadPayload`,
 * as it does a body that is not JSON, so a client bug shows up in tests instead of passing silently.
 */
const SHOWN_OR_WAKING_KEYS = ['alert', 'sound', 'badge', 'content-available'];

export function checkWidgetPayload(payload: Record<string, unknown>): Checked<null> {
  const aps = payload.aps;
  if (typeof aps !== 'object' || aps === null || Array.isArray(aps)) return { ok: false, reason: 'BadPayload' };
  const fields = aps as Record<string, unknown>;
  if (fields['content-changed'] !== true) return { ok: false, reason: 'BadPayload' };
  if (SHOWN_OR_WAKING_KEYS.some((key) => key in fields)) return { ok: false, reason: 'BadPayload' };
  return { ok: true, value: null };
}

/** One widget reload a simulated device performed: a widgets push APNs accepted for its token. */
export interface FakeWidgetReload {
  /** The widget push token, lower-case hex. */
  token: string;
  /** The app's bundle id (the topic without `.push-type.widgets`). */
  bundleId: string;
  /** Clock time (ms) the push was accepted. */
  at: number;
  priority: number | null;
  expiration: number | null;
}

/** The devices' widget reloads, oldest first, for tests to assert on. */
export class FakeWidgetReloads {
  readonly reloads: FakeWidgetReload[] = [];

  accept(reload: FakeWidgetReload): void {
    this.reloads.push(reload);
  }

  /** The reloads the device holding `token` performed. */
  forToken(token: string): FakeWidgetReload[] {
    const wanted = token.toLowerCase();
    return this.reloads.filter((reload) => reload.token === wanted);
  }

  reset(): void {
    this.reloads.length = 0;
  }
}
