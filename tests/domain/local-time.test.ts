import { describe, expect, it } from 'vitest';
import { instantOfLocal, nextLocalOccurrence, parseLocalTime, zoneOffsetMs } from '../../src/domain/local-time.ts';

const at = (iso: string) => Date.parse(iso);
const nine = { hour: 9, minute: 0 };

describe('parseLocalTime', () => {
  it.each([
    ['09:00', { hour: 9, minute: 0 }],
    ['00:00', { hour: 0, minute: 0 }],
    ['23:59', { hour: 23, minute: 59 }],
  ])('reads %s', (text, expected) => expect(parseLocalTime(text)).toEqual(expected));
  it.each(['9:00', '24:00', '12:60', '12:5', '', '12-30', ' 09:00'])('refuses %j', (text) =>
    expect(parseLocalTime(text)).toBeNull(),
  );
});

describe('nextLocalOccurrence', () => {
  it.each([
    // zone, not before (UTC), expected instant (UTC)
    ['UTC', '2026-03-10T08:00:00Z', '2026-03-10T09:00:00Z'],
    ['UTC', '2026-03-10T09:00:00Z', '2026-03-10T09:00:00Z'],
    ['UTC', '2026-03-10T09:00:01Z', '2026-03-11T09:00:00Z'],
    ['Europe/Berlin', '2026-01-15T00:00:00Z', '2026-01-15T08:00:00Z'],
    ['Europe/Berlin', '2026-07-15T00:00:00Z', '2026-07-15T07:00:00Z'],
    ['America/New_York', '2026-01-15T12:00:00Z', '2026-01-15T14:00:00Z'],
    ['America/New_York', '2026-01-15T15:00:00Z', '2026-01-16T14:00:00Z'],
    ['Asia/Tokyo', '2026-01-15T00:00:00Z', '2026-01-15T00:00:00Z'],
    ['Asia/Kolkata', '2026-01-15T00:00:00Z', '2026-01-15T03:30:00Z'],
    ['Pacific/Chatham', '2026-01-15T00:00:00Z', '2026-01-15T19:15:00Z'],
    // The day the clocks change keeps 09:00 local on either side.
    ['Europe/Berlin', '2026-03-29T00:00:00Z', '2026-03-29T07:00:00Z'],
    ['America/New_York', '2026-11-01T00:00:00Z', '2026-11-01T14:00:00Z'],
  ])('%s after %s → %s', (zone, notBefore, expected) => {
    expect(new Date(nextLocalOccurrence(nine, zone, at(notBefore))).toISOString()).toBe(
      new Date(at(expected)).toISOString(),
    );
  });

  it('moves a time in the spring-forward gap forward by the gap: 02:30 Berlin on 2026-03-29 is 03:30 CEST', () => {
    const instant = nextLocalOccurrence({ hour: 2, minute: 30 }, 'Europe/Berlin', at('2026-03-28T12:00:00Z'));
    expect(new Date(instant).toISOString()).toBe('2026-03-29T01:30:00.000Z');
  });

  it('takes the first of a time that happens twice: 01:30 New York on 2026-11-01 is 01:30 EDT', () => {
    const instant = nextLocalOccurrence({ hour: 1, minute: 30 }, 'America/New_York', at('2026-10-31T12:00:00Z'));
    expect(new Date(instant).toISOString()).toBe('2026-11-01T05:30:00.000Z');
  });

  it('is never earlier than asked', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'America/Los_Angeles', 'Australia/Lord_Howe', 'Asia/Kathmandu']) {
      for (let hour = 0; hour < 24; hour += 5) {
        const from = at('2026-03-29T00:00:00Z') + hour * 3_600_000;
        const instant = nextLocalOccurrence({ hour: 10, minute: 15 }, zone, from);
        expect(instant).toBeGreaterThanOrEqual(from);
        expect(instant - from).toBeLessThan(25 * 3_600_000);
      }
    }
  });
});

describe('zoneOffsetMs and instantOfLocal', () => {
  it('round-trips ordinary local times', () => {
    expect(zoneOffsetMs(at('2026-07-01T00:00:00Z'), 'Europe/Berlin')).toBe(2 * 3_600_000);
    expect(instantOfLocal('Europe/Berlin', { year: 2026, month: 7, day: 1, hour: 12, minute: 0 })).toBe(
      at('2026-07-01T10:00:00Z'),
    );
  });
});
