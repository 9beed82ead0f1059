import type { IncomingHttpHeaders } from 'node:http2';
import type { ApnsReason } from './apns-reasons.ts';

/**
 * The checks APNs makes on a push request's line, headers and body (docs/protocols.md 1.3 and the 6.1 checklist). Pure
 * functions: each returns the parsed value or the reason APNs would reject with; the server decides the order.
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; reason: ApnsReason };

const reject = (reason: ApnsReason) => ({ ok: false as const, reason });
const accept = <T>(value: T) => ({ ok: true as const, value });

const DEVICE_PATH_PREFIX = '/3/device/';

/** POST only (405 MethodNotAllowed); `/3/device/<token>` (400 MissingDeviceToken when empty, else 404 BadPath). */
export function checkRequestLine(method: string | undefined, path: string | undefined): Checked<{ token: string }> {
  if (method !== 'POST') return reject('MethodNotAllowed');
  const withoutQuery = (path ?? '').split('?')[0] ?? '';
  if (!withoutQuery.startsWith(DEVICE_PATH_PREFIX)) return reject('BadPath');
  const token = withoutQuery.slice(DEVICE_PATH_PREFIX.length);
  if (token === '') return reject('MissingDeviceToken');
  if (token.includes('/')) return reject('BadPath');
  return accept({ token });
}

/** A header sent twice → 400 DuplicateHeaders (sideshow/apns2 response.go). `rawHeaders` is [name, value, ...]. */
export function checkNoDuplicateHeaders(rawHeaders: readonly string[]): Checked<null> {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    if (seen.has(name)) return reject('DuplicateHeaders');
    seen.add(name);
  }
  return accept(null);
}

/**
 * Apple documents device tokens as variable length ("don't hard-code their size"), so any even-length hex string is
 * accepted, as docs/protocols.md 1.3 recommends (pushy's mock only takes exactly 64 digits; Live Activity tokens are longer).
 */
export function checkDeviceToken(token: string): Checked<string> {
  return /^(?:[0-9a-fA-F]{2})+$/.test(token) ? accept(token.toLowerCase()) : reject('BadDeviceToken');
}

export const apnsPushTypes = [
  'alert',
  'background',
  'location',
  'voip',
  'complication',
  'fileprovider',
  'mdm',
  'liveactivity',
  'pushtotalk',
  'widgets',
] as const;
export type ApnsPushType = (typeof apnsPushTypes)[number];

/** Topic suffix each push type needs after the bundle id (docs/protocols.md 1.3, `apns-topic` row). */
const topicSuffixes: Partial<Record<ApnsPushType, string>> = {
  voip: '.voip',
  complication: '.complication',
  fileprovider: '.pushkit.fileprovider',
  location: '.location-query',
  pushtotalk: '.voip-ptt',
  liveactivity: '.push-type.liveactivity',
  widgets: '.push-type.widgets',
};

export interface ApnsHeaders {
  /** The caller's apns-id, or null when absent (the server then generates one). */
  apnsId: string | null;
  pushType: ApnsPushType | null;
  /** 10 when omitted (docs/protocols.md 1.3). */
  priority: 10 | 5 | 1;
  expiration: number | null;
  collapseId: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** ≤ 64 bytes (pushy `MAX_COLLAPSE_ID_SIZE = 64`). */
const MAX_COLLAPSE_ID_BYTES = 64;

export function checkApnsHeaders(headers: IncomingHttpHeaders): Checked<ApnsHeaders> {
  const apnsId = single(headers['apns-id']);
  if (apnsId !== undefined && !UUID.test(apnsId)) return reject('BadMessageId');

  const pushTypeValue = single(headers['apns-push-type']);
  if (pushTypeValue !== undefined && !(apnsPushTypes as readonly string[]).includes(pushTypeValue))
    return reject('InvalidPushType');
  const pushType = (pushTypeValue as ApnsPushType | undefined) ?? null;

  const priorityValue = single(headers['apns-priority']);
  if (priorityValue !== undefined && !['10', '5', '1'].includes(priorityValue)) return reject('BadPriority');
  const priority = Number(priorityValue ?? '10') as 10 | 5 | 1;
  // Background (content-available only) pushes must not use 10; Live Activities take 5 or 10 (docs/protocols.md 1.3, 2.1).
  if (pushType === 'background' && priorityValue === '10') return reject('BadPriority');
  if (pushType === 'liveactivity' && priority === 1) return reject('BadPriority');

  const expirationValue = single(headers['apns-expiration']);
  if (expirationValue !== undefined && !/^\d{1,12}$/.test(expirationValue)) return reject('BadExpirationDate');

  const collapseId = single(headers['apns-collapse-id']);
  if (collapseId !== undefined && Buffer.byteLength(collapseId, 'utf8') > MAX_COLLAPSE_ID_BYTES)
    return reject('BadCollapseId');

  return accept({
    apnsId: apnsId ?? null,
    pushType,
    priority,
    expiration: expirationValue === undefined ? null : Number(expirationValue),
    collapseId: collapseId ?? null,
  });
}

/**
 * Topic rules with token auth: required (400 MissingTopic); a bundle-id-like string (400 BadTopic); the suffix the
 * push type needs, e.g. `<bundle>.push-type.liveactivity` (400 TopicDisallowed, the reason reported when a voip push
 * lacked `.voip`, https://github.com/node-apn/node-apn/issues/635). Returns the bundle id the topic belongs to.
 */
export function checkTopic(
  topic: string | undefined,
  pushType: ApnsPushType | null,
): Checked<{ topic: string; bundleId: string }> {
  if (topic === undefined || topic === '') return reject('MissingTopic');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(topic)) return reject('BadTopic');
  const needed = pushType ? topicSuffixes[pushType] : undefined;
  if (needed) {
    if (!topic.endsWith(needed) || topic.length === needed.length) return reject('TopicDisallowed');
    return accept({ topic, bundleId: topic.slice(0, -needed.length) });
  }
  const suffix = Object.values(topicSuffixes).find((candidate) => topic.endsWith(candidate));
  // An alert or background push aimed at a VoIP/Live Activity/... topic is a client bug.
  if (suffix && (pushType === 'alert' || pushType === 'background')) return reject('TopicDisallowed');
  // Without apns-push-type (allowed outside watchOS) the topic alone says what it is.
  return accept({ topic, bundleId: suffix ? topic.slice(0, -suffix.length) : topic });
}

/** 4096 bytes, 5120 for VoIP (docs/protocols.md 1.3). */
export function maxPayloadBytes(pushType: ApnsPushType | null): number {
  return pushType === 'voip' ? 5120 : 4096;
}

/** Empty → 400 PayloadEmpty; over the limit → 413 PayloadTooLarge; not a JSON object → 400 BadPayload. */
export function checkPayload(
  body: Buffer,
  size: number,
  pushType: ApnsPushType | null,
  maxBytes = maxPayloadBytes(pushType),
): Checked<Record<string, unknown>> {
  if (size === 0) return reject('PayloadEmpty');
  if (size > maxBytes) return reject('PayloadTooLarge');
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return reject('BadPayload');
    return accept(parsed as Record<string, unknown>);
  } catch {
    return reject('BadPayload');
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
