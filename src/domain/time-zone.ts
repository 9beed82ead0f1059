/**
 * Which time zone names Clarion takes (a subscriber's `timezone`, an account's default zone): names of the IANA time
 * zone database (https://www.iana.org/time-zones) of the form Area/Location — America/Los_Angeles, Europe/Berlin,
 * Etc/GMT+8, and the older links the database keeps, like US/Pacific or Asia/Calcutta — plus UTC and GMT.
 *
 * Intl alone accepts more (measured on Node 20.20, 22.23 and 24.21, ICU 78): abbreviations from ICU's own table that
 * IANA never had, mapped to some zone (PST → America/Los_Angeles, BST → Asia/Dhaka, IST → Asia/Calcutta), ICU's
 * SystemV/* zones, and on Node 22 and later offsets like "+05:00" (Node 20 refuses those, so a worker on another
 * Node line could fail on a stored one). The database's own names without a place (EST, CET, EST5EDT, Japan) are
 * refused too: EST is UTC−5 all year (a link to America/Panama since tzdata 2024b), not New York's time, and each of
 * them is more often a caller's mistake than the zone it names. docs/api.md, "Subscribers", says so for callers.
 *
 * A name is checked by what Intl resolves it to: a zone of Intl.supportedValuesOf('timeZone') (418 canonical
 * zones on all three lines, none of them UTC or Etc/*, hence the two exceptions).
 */
const UNIVERSAL = new Set(['UTC', 'GMT']);
const FIXED_OFFSET = /^Etc\/GMT[+-]\d{1,2}$/;

let canonicalZones: ReadonlySet<string> | null = null;

/** The runtime's canonical zones, read once when first needed. */
function canonical(): ReadonlySet<string> {
  canonicalZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  return canonicalZones;
}

export const TIME_ZONE_PROBLEM =
  'must be an IANA time zone name like America/Los_Angeles, Europe/Berlin or UTC; abbreviations like PST or CET are not accepted';

export function isTimeZone(value: string): boolean {
  if (!value.includes('/')) return UNIVERSAL.has(value.toUpperCase());
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  return resolved === 'UTC' || FIXED_OFFSET.test(resolved) || canonical().has(resolved);
}
