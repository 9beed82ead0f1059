/**
 * Wall-clock scheduling: "09:00 in each subscriber's own time zone". Written on Intl (which carries the IANA time
 * zone database) rather than a date library because it needs exactly one operation — the instant of a local time
 * in a zone — and the rules for daylight-saving transitions are ours to choose:
 *  - a local time that does not exist (spring forward, e.g. 02:30 in Europe/Berlin on the last Sunday of March) is
 *    delivered at the same distance after the gap starts: 02:30 → 03:30 local, the instant an hour-ahead clock shows;
 *  - a local time that happens twice (fall back) is delivered at its first occurrence.
 */
const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;

export function parseLocalTime(text: string): { hour: number; minute: number } | null {
  const match = HH_MM.exec(text);
  return match ? { hour: Number(match[1]), minute: Number(match[2]) } : null;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** The wall-clock fields of `instant` in `zone`. */
function wallClock(instant: number, zone: string) {
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(new Date(instant))
      .map((part) => [part.type, part.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The time of day `zone` shows at `instant`. */
export function localTimeOf(instant: number, zone: string): { hour: number; minute: number } {
  const wall = wallClock(instant, zone);
  return { hour: wall.hour, minute: wall.minute };
}

/** Offset of `zone` from UTC at `instant`, in milliseconds (positive east of Greenwich). */
export function zoneOffsetMs(instant: number, zone: string): number {
  const wall = wallClock(instant, zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return asUtc - (instant - (((instant % 1000) + 1000) % 1000));
}

/**
 * The instant at which `zone` shows the given local date and time, by the rules above. The candidate instants use
 * the offsets in force just before and just after: a time that exists maps back to itself under one of them (the
 * earlier instant wins when both do: the first occurrence); a time in a gap maps under neither, and then the
 * offset from before the gap places it after the gap by the same distance.
 */
export function instantOfLocal(
  zone: string,
  local: { year: number; month: number; day: number; hour: number; minute: number },
): number {
  const naive = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  const offsetBefore = zoneOffsetMs(naive - 36 * 3_600_000, zone);
  const offsetAfter = zoneOffsetMs(naive + 36 * 3_600_000, zone);
  const candidates = [...new Set([naive - offsetBefore, naive - offsetAfter])].sort((a, b) => a - b);
  for (const candidate of candidates) {
    const wall = wallClock(candidate, zone);
    if (
      wall.year === local.year &&
      wall.month === local.month &&
      wall.day === local.day &&
      wall.hour === local.hour &&
      wall.minute === local.minute
    ) {
      return candidate;
    }
  }
  return naive - offsetBefore;
}

/** The first instant at or after `notBefore` when `zone` shows `hh:mm`. */
export function nextLocalOccurrence(
  localTime: { hour: number; minute: number },
  zone: string,
  notBefore: number,
): number {
  const today = wallClock(notBefore, zone);
  for (let addDays = 0; addDays < 3; addDays += 1) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + addDays));
    const instant = instantOfLocal(zone, {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      ...localTime,
    });
    if (instant >= notBefore) return instant;
  }
  throw new Error(`no occurrence of ${localTime.hour}:${localTime.minute} in ${zone} within 3 days`);
}
