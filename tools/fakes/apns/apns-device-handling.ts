import type { ApnsPushType } from './apns-request-rules.ts';

/**
 * What a device does with an alert or background push APNs delivered, as Apple documents it. APNs itself accepts
 * either kind with any `aps` (only a background push at priority 10 is refused, BadPriority); the device decides:
 * - a background push wakes the app and shows nothing when its `aps` holds only `content-available: 1`; a key that
 *   would make the device interact with the person (alert, sound, badge) does not belong in it
 *   (https://developer.apple.com/documentation/usernotifications/pushing-background-updates-to-your-app);
 * - the push type must match the payload: an alert push carries something to show, and a push whose `aps` holds only
 *   content-available is a background push (docs/protocols.md 1.3, apns-push-type: "a wrong or missing value may
 *   delay or drop the push").
 * Tests assert on `kind`; `mismatch` says what was wrong.
 */
export type ApnsDeviceHandling = { kind: 'shown' } | { kind: 'woke-app' } | { kind: 'mismatch'; problem: string };

const SHOWN_KEYS = ['alert', 'sound', 'badge'];

export function deviceHandling(pushType: ApnsPushType | null, payload: unknown): ApnsDeviceHandling | null {
  if (pushType !== null && pushType !== 'alert' && pushType !== 'background') return null;
  const aps = typeof payload === 'object' && payload !== null ? (payload as { aps?: unknown }).aps : undefined;
  if (typeof aps !== 'object' || aps === null)
    return { kind: 'mismatch', problem: 'the payload has no aps dictionary' };
  const keys = Object.keys(aps);
  const wakesOnly = keys.length === 1 && (aps as Record<string, unknown>)['content-available'] === 1;
  const shows = keys.some((key) => SHOWN_KEYS.includes(key));
  if (pushType === 'background') {
    return wakesOnly
      ? { kind: 'woke-app' }
      : { kind: 'mismatch', problem: "a background push's aps holds only content-available: 1" };
  }
  if (shows) return { kind: 'shown' };
  return {
    kind: 'mismatch',
    problem: wakesOnly
      ? 'a push that only wakes the app needs apns-push-type: background'
      : 'an alert push needs an alert, a sound or a badge',
  };
}
