import { apnsEnvironments, type ApnsEnvironment } from '../domain/apns-environment.ts';
import { isChannelCode } from '../domain/channel-code.ts';
import { isLocale, normalizeToken, platforms, type Platform } from '../domain/device-token.ts';
import { isTimeZone, TIME_ZONE_PROBLEM } from '../domain/time-zone.ts';
import { parseOsVersion } from '../domain/ios-version.ts';
import { templateNames, type TemplateName } from '../domain/live-activities/live-activity-templates.ts';
import type { SubscriberImportRow } from '../store/subscribers-queries.ts';

/**
 * One line of a `clarion subscribers import` file (docs/cli.md): a JSON object with the fields of
 * `POST /api/v1/subscribers` plus the channel, checked by the same rules (token shape per platform, IANA time zone,
 * BCP 47 locale). Pure: the command streams the file and calls this per line.
 *
 *   {"channel":"news","platform":"ios","token":"a1b2…","timezone":"Europe/Berlin","locale":"de-DE","externalId":"u-17"}
 */
export type ImportLine =
  { ok: true; channelCode: string; row: SubscriberImportRow } | { ok: false; problems: string[] };

const FIELDS = new Set([
  'channel',
  'platform',
  'token',
  'pushToStartToken',
  'pushToStartTokens',
  'environment',
  'osVersion',
  'timezone',
  'locale',
  'externalId',
]);

/** The same limits as POST /subscribers: osVersion at most 16 characters, a push-to-start token at most 400. */
const OS_VERSION_MAX_LENGTH = 16;
const PUSH_TO_START_TOKEN_MAX_LENGTH = 400;

export function parseImportLine(text: string): ImportLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problems: ['not a JSON object (one subscriber per line)'] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, problems: ['not a JSON object (one subscriber per line)'] };
  const line = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(line))
    if (!FIELDS.has(key)) problems.push(`${key}: unknown field (expected ${[...FIELDS].join(', ')})`);
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
    else if (!normalized.ok)
      problems.push(...normalized.problems.map((problem) => `${problem.field}: ${problem.message}`));
    else pushToStartToken = normalized.value.token;
  }
  const pushToStartTokens = templatedPushToStartTokens(platform as Platform, line.pushToStartTokens, problems);
  let apnsEnvironment: ApnsEnvironment | null = null;
  if (line.environment !== undefined && line.environment !== null) {
    if (platform !== 'ios') problems.push('environment: only iOS tokens have an APNs environment');
    else if (!apnsEnvironments.includes(line.environment as ApnsEnvironment))
      problems.push(`environment: must be one of ${apnsEnvironments.join(', ')}`);
    else apnsEnvironment = line.environment as ApnsEnvironment;
  }
  let osVersion: string | null = null;
  if (line.osVersion !== undefined && line.osVersion !== null) {
    if (platform !== 'ios') problems.push('osVersion: only iOS subscribers report an osVersion');
    else if (
      typeof line.osVersion !== 'string' ||
      line.osVersion.length > OS_VERSION_MAX_LENGTH ||
      parseOsVersion(line.osVersion) === null
    )
      problems.push('osVersion: must be an iOS version like 18.2');
    else osVersion = line.osVersion;
  }
  const timezone = optionalText(line, 'timezone', 64, problems);
  if (timezone !== null && !knownTimeZone(timezone)) problems.push(`timezone: ${TIME_ZONE_PROBLEM}`);
  const locale = optionalText(line, 'locale', 35, problems);
  if (locale !== null && !knownLocale(locale)) problems.push('locale: must be a BCP 47 language tag, like de-DE');
  const externalId = optionalText(line, 'externalId', 255, problems);
  if (problems.length > 0 || !token.ok) return { ok: false, problems };
  return {
    ok: true,
    channelCode: channel as string,
    row: {
      platform: platform as Platform,
      token: token.value.token,
      tokenHash: token.value.tokenHash,
      pushToStartToken,
      timezone,
      locale,
      externalId,
      ...(apnsEnvironment !== null ? { apnsEnvironment } : {}),
      ...(osVersion !== null ? { osVersion } : {}),
      ...(pushToStartTokens !== null ? { pushToStartTokens } : {}),
    },
  };
}

/**
 * `pushToStartTokens: {template: token}`: what POST /subscribers takes one at a time as `pushToStartToken` with
 * `template` (iOS issues one token per ActivityAttributes type), each checked as that endpoint checks it.
 */
function templatedPushToStartTokens(
  platform: Platform,
  value: unknown,
  problems: string[],
): Record<TemplateName, string> | null {
  if (value === undefined || value === null) return null;
  if (platform !== 'ios') {
    problems.push('pushToStartTokens: only iOS subscribers have push-to-start tokens');
    return null;
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push(
      `pushToStartTokens: must be an object of template name to token (templates: ${templateNames.join(', ')})`,
    );
    return null;
  }
  const tokens: Partial<Record<TemplateName, string>> = {};
  for (const [template, token] of Object.entries(value as Record<string, unknown>)) {
    const field = `pushToStartTokens.${template}`;
    if (!templateNames.includes(template as TemplateName))
      problems.push(`${field}: not a template (expected one of ${templateNames.join(', ')})`);
    else if (typeof token === 'string' && token.length > PUSH_TO_START_TOKEN_MAX_LENGTH)
      problems.push(`${field}: must be at most ${PUSH_TO_START_TOKEN_MAX_LENGTH} characters`);
    else {
      const normalized = normalizeToken('ios', token, field);
      if (!normalized.ok)
        problems.push(...normalized.problems.map((problem) => `${problem.field}: ${problem.message}`));
      else tokens[template as TemplateName] = normalized.value.token;
    }
  }
  return tokens as Record<TemplateName, string>;
}

/**
 * isTimeZone builds an Intl.DateTimeFormat, about 60 µs: a third of the import's CPU before this memo (a file has few
 * distinct zones); isLocale (Intl.getCanonicalLocales) was still ~5% of a 100,000-row import's CPU profile
 * (docs/performance.md, "Subscriber import"). Bounded, so a file of made-up values cannot grow them without end.
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

function optionalText(
  line: Record<string, unknown>,
  field: string,
  maxLength: number,
  problems: string[],
): string | null {
  const value = line[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    problems.push(`${field}: must be a string of 1 to ${maxLength} characters`);
    return null;
  }
  return value;
}
