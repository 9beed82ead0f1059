import type { Checked } from './apns-request-rules.ts';
import type { ApnsReason } from './apns-reasons.ts';
import { isWellFormedChannelId } from './apns-broadcast-channels.ts';

/**
 * The request rules of iOS 18 broadcast (docs/protocols.md 2.5): the channel management API on its own host and the
 * broadcast send on the push host. Pure, like apns-request-rules.ts; the server decides the order.
 *
 *   management  POST   /1/apps/<bundle>/channels       {"message-storage-policy": 0|1, "push-type": "LiveActivity"} → 201 + apns-channel-id
 *               GET    /1/apps/<bundle>/channels       apns-channel-id → 200 {"message-storage-policy", "push-type"}
 *               GET    /1/apps/<bundle>/all-channels   → 200 {"channels": [...]}
 *               DELETE /1/apps/<bundle>/channels       apns-channel-id → 204
 *   push host   POST   /4/broadcasts/apps/<bundle>     apns-channel-id, apns-push-type: liveactivity → 200
 */
const reject = (reason: ApnsReason) => ({ ok: false as const, reason });
const accept = <T>(value: T) => ({ ok: true as const, value });

export type ChannelOperation = 'create' | 'read' | 'delete' | 'list';

export function checkManagementLine(
  method: string | undefined,
  path: string | undefined,
): Checked<{ operation: ChannelOperation; bundleId: string }> {
  const match = /^\/1\/apps\/([A-Za-z0-9][A-Za-z0-9._-]*)\/(channels|all-channels)$/.exec(
    (path ?? '').split('?')[0] ?? '',
  );
  if (!match) return reject('BadPath');
  const bundleId = match[1]!;
  if (match[2] === 'all-channels')
    return method === 'GET' ? accept({ operation: 'list', bundleId }) : reject('MethodNotAllowed');
  const operation = ({ POST: 'create', GET: 'read', DELETE: 'delete' } as const)[method as 'POST' | 'GET' | 'DELETE'];
  return operation ? accept({ operation, bundleId }) : reject('MethodNotAllowed');
}

/** POST /4/broadcasts/apps/<bundle> on the push host (405 for another method). */
export function checkBroadcastLine(
  method: string | undefined,
  path: string | undefined,
): Checked<{ bundleId: string }> | null {
  const match = /^\/4\/broadcasts\/apps\/([^/?]*)$/.exec((path ?? '').split('?')[0] ?? '');
  if (!match) return null;
  if (method !== 'POST') return reject('MethodNotAllowed');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(match[1]!)) return reject('BadPath');
  return accept({ bundleId: match[1]! });
}

/** `apns-channel-id`: required (MissingChannelId), base64 of bounded length (BadChannelId). */
export function checkChannelIdHeader(value: string | undefined): Checked<string> {
  if (value === undefined || value === '') return reject('MissingChannelId');
  return isWellFormedChannelId(value) ? accept(value) : reject('BadChannelId');
}

/** Broadcasts carry Live Activities only: no push type → MissingPushType, another one → InvalidPushType. */
export function checkBroadcastPushType(value: string | undefined): Checked<'liveactivity'> {
  if (value === undefined) return reject('MissingPushType');
  return value === 'liveactivity' ? accept('liveactivity') : reject('InvalidPushType');
}

/**
 * The create body: `message-storage-policy` 0 or 1 and `push-type` "LiveActivity" (the only type channels take:
 * InvalidPushType otherwise). A body that is not that JSON object is BadPayload (the fake's reason, see apns-reasons.ts).
 */
export function checkCreateChannelBody(body: Buffer): Checked<{ messageStoragePolicy: 0 | 1 }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return reject('BadPayload');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return reject('BadPayload');
  const fields = parsed as Record<string, unknown>;
  if (fields['push-type'] !== 'LiveActivity') return reject('InvalidPushType');
  const policy = fields['message-storage-policy'];
  if (policy !== 0 && policy !== 1) return reject('BadPayload');
  return accept({ messageStoragePolicy: policy });
}

/** Broadcast payloads may be 5,120 bytes (docs/protocols.md 1.3, secondary), more than a device push's 4,096. */
export const BROADCAST_MAX_PAYLOAD_BYTES = 5120;
