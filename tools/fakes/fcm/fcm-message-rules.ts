import { type GoogleErrorAnswer, badRequest, fcmError } from './fcm-errors.ts';

/**
 * Validation of a `messages:send` body (docs/protocols.md 3.2, 3.3 and checklist 6.2). Pure: returns the parsed request
 * or the exact error answer FCM would give.
 */
export interface FcmSendRequest {
  message: Record<string, unknown>;
  validateOnly: boolean;
  target: { kind: 'token' | 'topic' | 'condition' | 'fid'; value: string };
}

export type CheckedSend = { ok: true; value: FcmSendRequest } | { ok: false; error: GoogleErrorAnswer };

const TARGETS = ['token', 'topic', 'condition', 'fid'] as const;
/** Fields of v1 `Message`; proto JSON accepts both snake_case and lowerCamelCase names. */
const MESSAGE_FIELDS = new Set([
  'name',
  'data',
  'notification',
  'android',
  'webpush',
  'apns',
  'fcm_options',
  'fcmOptions',
  ...TARGETS,
]);
const REQUEST_FIELDS = new Set(['message', 'validate_only', 'validateOnly']);
/** 4096 bytes, 2048 for topic messages (docs/protocols.md 3.3 "Size limit"; conditions address topics too). */
const MAX_PAYLOAD_BYTES = 4096;
const MAX_TOPIC_PAYLOAD_BYTES = 2048;
/** android.ttl default and maximum: 4 weeks (docs/protocols.md 3.3). */
const MAX_TTL_SECONDS = 2_419_200;

export function checkSendBody(text: string): CheckedSend {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    const description = `Invalid JSON payload received. ${(error as Error).message}`;
    return fail(badRequest(description, [{ description }]));
  }
  if (!isObject(body))
    return fail(invalidValue('', 'type.googleapis.com/google.firebase.fcm.v1.SendMessageRequest', body));
  const unknownTop = Object.keys(body).find((key) => !REQUEST_FIELDS.has(key));
  if (unknownTop !== undefined) return fail(unknownName(unknownTop, null));

  const message = body.message ?? {};
  if (!isObject(message))
    return fail(invalidValue('message', 'type.googleapis.com/google.firebase.fcm.v1.Message', message));
  const unknownField = Object.keys(message).find((key) => !MESSAGE_FIELDS.has(key));
  if (unknownField !== undefined) return fail(unknownName(unknownField, 'message'));
  const validateOnly = body.validate_only ?? body.validateOnly ?? false;
  if (typeof validateOnly !== 'boolean') return fail(invalidValue('validate_only', 'TYPE_BOOL', validateOnly));

  const targets = TARGETS.filter((kind) => message[kind] !== undefined);
  if (targets.length === 0) {
    const description = 'Recipient of the message is not set.';
    return fail(badRequest(description, [{ field: 'message', description }], true));
  }
  if (targets.length > 1) {
    const description = `Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '${targets[1]}'`;
    return fail(badRequest(description, [{ field: 'message', description }]));
  }
  const kind = targets[0] as FcmSendRequest['target']['kind'];
  const value = message[kind];
  if (typeof value !== 'string') return fail(invalidValue(`message.${kind}`, 'TYPE_STRING', value));
  const targetProblem = checkTarget(kind, value);
  if (targetProblem) return fail(targetProblem);

  const problem =
    checkData(message.data, 'message.data') ??
    checkStringFields(message.notification, 'message.notification') ??
    checkAndroid(message.android) ??
    checkStringMap(isObject(message.apns) ? message.apns.headers : undefined, 'message.apns.headers') ??
    checkStringMap(isObject(message.webpush) ? message.webpush.headers : undefined, 'message.webpush.headers') ??
    checkSize(message, kind);
  if (problem) return fail(problem);
  return { ok: true, value: { message, validateOnly, target: { kind, value } } };
}

function checkTarget(kind: FcmSendRequest['target']['kind'], value: string): GoogleErrorAnswer | null {
  // Registration tokens are opaque (~160 chars of [A-Za-z0-9_:-] today); anything else cannot be one.
  if ((kind === 'token' || kind === 'fid') && !/^[A-Za-z0-9_:.-]{1,4096}$/.test(value))
    return fcmError('INVALID_ARGUMENT');
  // Topic names: [a-zA-Z0-9-_.~%]+, without the legacy "/topics/" prefix in v1.
  if (kind === 'topic' && !/^[a-zA-Z0-9\-_.~%]{1,900}$/.test(value))
    return fcmError('INVALID_ARGUMENT', { message: 'Invalid topic name' });
  if (kind === 'condition' && value.trim() === '')
    return fcmError('INVALID_ARGUMENT', { message: 'Invalid condition expression provided.' });
  return null;
}

/** data: map of string to string; reserved keys `from`, `message_type` and any `google`/`gcm` prefix (docs/protocols.md 3.3). */
function checkData(data: unknown, field: string): GoogleErrorAnswer | null {
  if (data === undefined) return null;
  if (!isObject(data)) return invalidValue(field, 'type.googleapis.com/google.firebase.fcm.v1.Message.DataEntry', data);
  const entries = Object.entries(data);
  for (const [index, [key, value]] of entries.entries()) {
    if (typeof value !== 'string') return invalidValue(`${field}[${index}].value`, 'TYPE_STRING', value);
    if (key === 'from' || key === 'message_type' || /^(google|gcm)/i.test(key)) {
      return fcmError('INVALID_ARGUMENT', { message: `Invalid data payload key: ${key}` });
    }
  }
  return null;
}

function checkAndroid(android: unknown): GoogleErrorAnswer | null {
  if (android === undefined) return null;
  if (!isObject(android))
    return invalidValue('message.android', 'type.googleapis.com/google.firebase.fcm.v1.AndroidConfig', android);
  const priority = android.priority;
  if (
    priority !== undefined &&
    (typeof priority !== 'string' || !['NORMAL', 'HIGH'].includes(priority.toUpperCase()))
  ) {
    return invalidValue(
      'message.android.priority',
      'type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority',
      priority,
    );
  }
  const ttl = android.ttl;
  if (ttl !== undefined) {
    // A protobuf Duration in JSON: seconds with up to 9 fractional digits and an "s", e.g. "3600s" or "3.5s".
    if (typeof ttl !== 'string' || !/^\d+(\.\d{1,9})?s$/.test(ttl))
      return invalidValue('message.android.ttl', 'type.googleapis.com/google.protobuf.Duration', ttl);
    if (Number(ttl.slice(0, -1)) > MAX_TTL_SECONDS) {
      const description = `TTL exceeds the maximum of ${MAX_TTL_SECONDS}s (4 weeks).`;
      return badRequest(description, [{ field: 'message.android.ttl', description }]);
    }
  }
  if (android.collapse_key !== undefined && typeof android.collapse_key !== 'string')
    return invalidValue('message.android.collapse_key', 'TYPE_STRING', android.collapse_key);
  return (
    checkData(android.data, 'message.android.data') ??
    checkStringFields(android.notification, 'message.android.notification', [
      'title',
      'body',
      'channel_id',
      'tag',
      'image',
    ])
  );
}

/** Fields that must be strings when present (notification title/body/image). */
function checkStringFields(
  value: unknown,
  field: string,
  names = ['title', 'body', 'image'],
): GoogleErrorAnswer | null {
  if (value === undefined) return null;
  if (!isObject(value)) return invalidValue(field, 'type.googleapis.com/google.firebase.fcm.v1.Notification', value);
  const bad = names.find((name) => value[name] !== undefined && typeof value[name] !== 'string');
  return bad === undefined ? null : invalidValue(`${field}.${bad}`, 'TYPE_STRING', value[bad]);
}

function checkStringMap(value: unknown, field: string): GoogleErrorAnswer | null {
  if (value === undefined) return null;
  if (!isObject(value)) return invalidValue(field, 'TYPE_MAP', value);
  const index = Object.values(value).findIndex((entry) => typeof entry !== 'string');
  return index === -1 ? null : invalidValue(`${field}[${index}].value`, 'TYPE_STRING', Object.values(value)[index]);
}

/**
 * Counts the UTF-8 bytes of the keys and values inside the message's parts (data, notification, android, ...), not
 * the part names, the target or JSON punctuation: FCM's "keys and values" rule. Over the limit → 400 INVALID_ARGUMENT
 * "Message is too big" [message wording unconfirmed].
 */
function checkSize(message: Record<string, unknown>, kind: FcmSendRequest['target']['kind']): GoogleErrorAnswer | null {
  const limit = kind === 'topic' || kind === 'condition' ? MAX_TOPIC_PAYLOAD_BYTES : MAX_PAYLOAD_BYTES;
  const size = Object.entries(message)
    .filter(([key]) => !(TARGETS as readonly string[]).includes(key))
    .reduce((sum, [, value]) => sum + contentBytes(value), 0);
  return size > limit ? fcmError('INVALID_ARGUMENT', { message: 'Message is too big' }) : null;
}

function contentBytes(value: unknown): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + contentBytes(item), 0);
  if (isObject(value))
    return Object.entries(value).reduce((sum, [key, item]) => sum + Buffer.byteLength(key) + contentBytes(item), 0);
  return value === null || value === undefined ? 0 : Buffer.byteLength(String(value));
}

/** Google's wording for a wrongly typed field, e.g. "Invalid value at 'message.data[0].value' (TYPE_STRING), 12". */
function invalidValue(field: string, type: string, value: unknown): GoogleErrorAnswer {
  const description = `Invalid value at '${field}' (${type}), ${JSON.stringify(value) ?? 'undefined'}`;
  return badRequest(description, [{ field, description }]);
}

function unknownName(name: string, at: string | null): GoogleErrorAnswer {
  const description = `Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ''}: Cannot find field.`;
  return badRequest(description, [{ ...(at ? { field: at } : {}), description }]);
}

function fail(error: GoogleErrorAnswer): CheckedSend {
  return { ok: false, error };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
