/**
 * The headers and size a push service checks before it takes a message (RFC 8030 §5, RFC 8291 §4; docs/protocols.md
 * 4.5, checklist 6.3). Pure: headers and body size in, the refusal (status and reason) or the parsed values out.
 */
export interface PushHeaders {
  ttl: number;
  urgency: 'very-low' | 'low' | 'normal' | 'high';
  topic: string | null;
}

/** `errno`: Mozilla autopush's number for the refusal, where its table has one (web-push-answers.ts). */
export type RequestCheck =
  { ok: true; value: PushHeaders } | { ok: false; status: 400 | 413; reason: string; errno?: number };

/** A push service must accept bodies up to 4,096 bytes and may refuse larger ones with 413 (RFC 8030 §7.2). */
export const MAX_BODY_BYTES = 4096;
const URGENCIES = new Set(['very-low', 'low', 'normal', 'high']);
const TOPIC = /^[A-Za-z0-9_-]{1,32}$/;

export function checkPushRequest(
  headers: Record<string, string | string[] | undefined>,
  bodyBytes: number,
): RequestCheck {
  const single = (name: string): string | undefined => {
    const value = headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  const ttlText = single('ttl');
  if (ttlText === undefined) return { ok: false, status: 400, reason: 'TTL header is required', errno: 111 };
  if (!/^\d+$/.test(ttlText.trim()))
    return {
      ok: false,
      status: 400,
      reason: `TTL must be a non-negative number of seconds (got "${ttlText}")`,
      errno: 112,
    };
  const urgency = single('urgency') ?? 'normal';
  if (!URGENCIES.has(urgency))
    return { ok: false, status: 400, reason: `Urgency must be very-low, low, normal or high (got "${urgency}")` };
  const topic = single('topic') ?? null;
  if (topic !== null && !TOPIC.test(topic))
    return {
      ok: false,
      status: 400,
      reason: `Topic must be 1 to 32 base64url characters (got "${topic}")`,
      errno: 113,
    };
  if (single('content-encoding') !== 'aes128gcm')
    return {
      ok: false,
      status: 400,
      reason: `Content-Encoding must be aes128gcm (got "${single('content-encoding') ?? ''}")`,
    };
  if (bodyBytes > MAX_BODY_BYTES)
    return { ok: false, status: 413, reason: `body of ${bodyBytes} bytes is over ${MAX_BODY_BYTES}`, errno: 104 };
  return { ok: true, value: { ttl: Number(ttlText), urgency: urgency as PushHeaders['urgency'], topic } };
}
