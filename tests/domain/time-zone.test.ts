import { describe, expect, it } from 'vitest';
import { isTimeZone } from '../../src/domain/time-zone.ts';

describe('time zone names (src/domain/time-zone.ts)', () => {
  it.each([
    'America/Los_Angeles',
    'Europe/Berlin',
    'Australia/Lord_Howe',
    'America/Argentina/Buenos_Aires',
    // UTC and the fixed offsets: none of them is in Intl.supportedValuesOf('timeZone') on Node 20, 22 or 24.
    'UTC',
    'GMT',
    'Etc/UTC',
    'Etc/GMT+8',
    'Etc/GMT-14',
    // Older names the database keeps as links, and the newer ones the runtime's list does not carry yet.
    'US/Pacific',
    'Asia/Calcutta',
    'Asia/Kolkata',
    'Europe/Kiev',
    'Europe/Kyiv',
    // Intl matches names without regard to case.
    'america/los_angeles',
  ])('accepts %s', (name) => {
    expect(isTimeZone(name)).toBe(true);
  });

  it.each([
    // Abbreviations: ICU maps them to some zone (PST → Los Angeles, BST → Dhaka, IST → Kolkata), IANA has no PST.
    'PST',
    'BST',
    'IST',
    // Names the IANA database still carries without a place: EST is UTC−5 all year (Panama), not New York's time.
    'EST',
    'CET',
    'EST5EDT',
    'PST8PDT',
    'Japan',
    // Not names: an offset (accepted by Intl on Node 22 and later, refused by Node 20), ICU's own SystemV zones.
    '+05:00',
    'SystemV/PST8',
    'Mars/Olympus',
    'Etc/GMT+15',
    'Z',
    '',
  ])('refuses %j', (name) => {
    expect(isTimeZone(name)).toBe(false);
  });
});
