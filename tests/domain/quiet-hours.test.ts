import { describe, expect, it } from 'vitest';
import { quietHoursEndAt } from '../../src/domain/quiet-hours.ts';

const at = (iso: string) => Date.parse(iso);

describe('quiet hours', () => {
  const night = { start: '22:00', end: '07:00' };

  it.each([
    ['21:59 Berlin (winter, UTC+1) is before them', '2026-01-10T20:59:00Z', null],
    ['22:00 Berlin starts them, until 07:00 the next morning', '2026-01-10T21:00:00Z', '2026-01-11T06:00:00Z'],
    ['03:00 Berlin, past midnight, until 07:00 that morning', '2026-01-11T02:00:00Z', '2026-01-11T06:00:00Z'],
    ['07:00 Berlin ends them', '2026-01-11T06:00:00Z', null],
    ['23:30 Berlin in summer (UTC+2)', '2026-07-10T21:30:00Z', '2026-07-11T05:00:00Z'],
  ])('%s', (_name, instant, endsAt) => {
    expect(quietHoursEndAt(night, 'Europe/Berlin', at(instant))).toBe(endsAt === null ? null : at(endsAt));
  });

  it('ends at the local end time across the spring-forward night (Berlin, 29 March 2026: 02:00 → 03:00)', () => {
    // 23:00 on the 28th (UTC+1); 07:00 on the 29th is already summer time (UTC+2).
    expect(quietHoursEndAt(night, 'Europe/Berlin', at('2026-03-28T22:00:00Z'))).toBe(at('2026-03-29T05:00:00Z'));
  });

  it('takes a window within one day too', () => {
    const lunch = { start: '12:00', end: '13:30' };
    expect(quietHoursEndAt(lunch, 'UTC', at('2026-01-10T12:45:00Z'))).toBe(at('2026-01-10T13:30:00Z'));
    expect(quietHoursEndAt(lunch, 'UTC', at('2026-01-10T13:30:00Z'))).toBeNull();
    expect(quietHoursEndAt(lunch, 'UTC', at('2026-01-10T11:59:00Z'))).toBeNull();
  });

  it("reads each subscriber's own zone: 23:00 in Berlin is 17:00 in New York", () => {
    const instant = at('2026-01-10T22:00:00Z');
    expect(quietHoursEndAt(night, 'Europe/Berlin', instant)).toBe(at('2026-01-11T06:00:00Z'));
    expect(quietHoursEndAt(night, 'America/New_York', instant)).toBeNull();
  });
});
