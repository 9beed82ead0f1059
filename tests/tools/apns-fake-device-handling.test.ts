import { describe, expect, it } from 'vitest';
import { deviceHandling } from '../../tools/fakes/apns/apns-device-handling.ts';

describe('fake APNs: what the device does with an alert or background push', () => {
  it.each([
    ['an alert push with an alert is shown', 'alert', { aps: { alert: { title: 'Hi' } } }, 'shown'],
    ['an alert push with only a badge is shown (it changes the icon)', 'alert', { aps: { badge: 2 } }, 'shown'],
    ['no push type, an alert: shown', null, { aps: { alert: 'Hi', sound: 'default' } }, 'shown'],
    ['a background push with content-available alone wakes the app', 'background', bg(), 'woke-app'],
    ['custom keys beside aps are fine', 'background', { ...bg(), sync: 'inbox' }, 'woke-app'],
    ['a background push with an alert does not match', 'background', bg({ alert: 'Hi' }), 'mismatch'],
    ['a background push with a badge does not match', 'background', bg({ badge: 1 }), 'mismatch'],
    ['content-available must be 1', 'background', { aps: { 'content-available': true } }, 'mismatch'],
    ['content-available alone sent as an alert push does not match', 'alert', bg(), 'mismatch'],
    ['an alert push with nothing to show does not match', 'alert', { aps: { category: 'X' } }, 'mismatch'],
    ['no aps at all', 'alert', { sync: 'x' }, 'mismatch'],
  ] as const)('%s', (_name, pushType, payload, kind) => {
    expect(deviceHandling(pushType, payload)?.kind).toBe(kind);
  });

  it('says nothing of other push types (Live Activities have their own rules)', () => {
    expect(deviceHandling('liveactivity', { aps: { event: 'update' } })).toBeNull();
  });
});

function bg(extra: Record<string, unknown> = {}) {
  return { aps: { 'content-available': 1, ...extra } };
}
