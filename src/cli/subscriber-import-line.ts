import { isChannelCode } from '../domain/channel-code.ts';
import { isLocale, isTimeZone, normalizeToken, platforms, type Platform } from '../domain/device-token.ts';
import type { SubscriberImport } from '../store/subscribers-store.ts';

/**
 * One line of a `clarion subscribers import` file (docs/cli.md): a JSON object with the fields of
 * `POST /api/v1/subscribers` plus the channel, checked by the same rules (token shape per platform, IANA time zone,
 * BCP 47 locale). Pure: the command streams the file and calls this per line.
 *
 *   {"channel":"news","platform":"ios","token":"a1b2…","timezone":"Europe/Berlin","locale":"de-DE","externalId":"u-17"}
 */
export type ImportLine = { ok: true; channelCode: string; row: SubscriberImport } | { ok: false; problems: string[] };

const FIELDS = new Set(['channel', 'platform', 'token', 'pushToStartToken', 'timezone', 'locale', 'externalId']);

export function parseImportLine(text: string): ImportLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problems: ['not a JSON object (one subscriber per line)'] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, problems: ['not a JSON object (one subscriber per line)'] };
  const line = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(line)) if (!FIELDS.has(key)) problems.push(`${key}: unknown field (expected ${[...FIELDS].join(', ')})`);
  const channel = line.channel;
  if (typeof channel !== 'string' || !isChannelCode(channel)) problems.push('channel: must be a channel code');
  const platform = line.platform;
  if (typeof platform !== 'string' || !platforms.includes(platform as Platform)) {
    problems.push(`platform: must be one of ${platforms.join(', ')}`);
    return { ok: false, problems };
  }
  const token = normalizeToken(platform as Platform, line.token);
  if (!token.ok) problems.push(...token.problems.map((problem) => `${problem.field}: ${problem.message}`));
  let pushToStartToken: string | null = null;
  if (line.pushToStartToken !== undefined && line.pushToStartToken !== null) {
    const normalized = platform === 'ios' ? normalizeToken('ios', line.pushToStartToken, 'pushToStartToken') : null;
    if (!normalized) problems.push('pushToStartToken: only iOS subscribers have a push-to-start token');
    else if (!normalized.ok) problems.push(...normalized.problems.map((problem) => `${problem.field}: ${problem.message}`));
    else pushToStartToken = normalized.value.token;
  }
  const timezone = optionalText(line, 'timezone', 64, problems);
  if (timezone !== null && !knownTimeZone(timezone)) problems.push('timezone: must be an IANA time zone name, like Europe/Berlin');
  const locale = optionalText(line, 'locale', 35, problems);
  if (locale !== null && !knownLocale(locale)) problems.push('locale: must be a BCP 47 language tag, like de-DE');
  const externalId = optionalText(line, 'externalId', 255, problems);
  if (problems.length > 0 || !token.ok) return { ok: false, problems };
  return {
    ok: true,
    channelCode: channel as string,
    row: { platform: platform as Platform, token: token.value.token, tokenHash: token.value.tokenHash, pushToStartToken, timezone, locale, externalId },
  };
}

/**
 * isTimeZone builds an Intl.DateTimeFormat, about 60 µs: a third of the import's CPU before this memo (a file has few
 * distinct zones); isLocale (Intl.getCanonicalLocales) was still ~5% of a 100,000-row import's CPU profile
 * (bench/README.md, "Subscriber import"). Bounded, so a file of made-up values cannot grow them without end.
 */
const knownTimeZone = memoized(isTimeZone);
const knownLocale = memoized(isLocale);

function memoized(check: (value: string) => boolean): (value: string) => boolean {
  const memo = new Map<string, boolean>();
  return (value) => {
    let known = memo.get(value);
    if (known === undefined) {
      known = check(value);
      if (memo.size < 2000) memo.set(value, known);
    }
    return known;
  };
}

function optionalText(line: Record<string, unknown>, field: string, maxLength: number, problems: string[]): string | null {
  const value = line[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    problems.push(`${field}: must be a string of 1 to ${maxLength} characters`);
    return null;
  }
  return value;
}
