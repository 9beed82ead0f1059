import { localTimeOf, nextLocalOccurrence, parseLocalTime } from './local-time.ts';

/**
 * A channel's quiet hours: "HH:MM" to "HH:MM" (24-hour) in each subscriber's own time zone, the account's default for
 * a subscriber without one, else UTC. A window whose start is after its end spans midnight (22:00 to 07:00). A push due
 * inside it waits until it ends, unless the push expires first (then it fails as `expired`); a send may pass it with
 * `ignoreQuietHours`. Silent pushes and Live Activities are not held: they show nothing or are what the person follows.
 */
export interface QuietHours {
  start: string;
  end: string;
}

/** A channel row's quiet-hours columns → the window, or null when the channel has none. */
export function quietHoursOf(row: {
  quiet_hours_start: string | null;
  quiet_hours_end: string | null;
}): QuietHours | null {
  if (row.quiet_hours_start === null || row.quiet_hours_end === null) return null;
  return { start: row.quiet_hours_start, end: row.quiet_hours_end };
}

const minutesOf = (time: { hour: number; minute: number }) => time.hour * 60 + time.minute;

/**
 * When the quiet hours that hold `instant` in `zone` end (epoch ms), or null when `instant` is outside them. The window
 * includes its start minute and ends at its end minute; a local time repeated by a daylight-saving change counts at
 * each of its occurrences, and the end is the first instant at or after `instant` that shows the end time.
 */
export function quietHoursEndAt(quiet: QuietHours, zone: string, instant: number): number | null {
  const start = parseLocalTime(quiet.start);
  const end = parseLocalTime(quiet.end);
  if (start === null || end === null) return null;
  const now = minutesOf(localTimeOf(instant, zone));
  const from = minutesOf(start);
  const to = minutesOf(end);
  const inside = from < to ? now >= from && now < to : now >= from || now < to;
  return inside ? nextLocalOccurrence(end, zone, instant) : null;
}
