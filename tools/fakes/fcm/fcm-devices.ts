/**
 * The Android devices behind the fake FCM: what FCM does with a message it accepted (200) before the app sees it.
 * Every rule cites its public source; a device is online unless a test takes it offline.
 *
 * - Collapsible messages (those with `android.collapse_key`) are throttled per app and device: "a burst of 20
 *   messages per app per device, with a refill of 1 message every 3 minutes"; the ones over it are delayed
 *   (https://firebase.google.com/docs/cloud-messaging/concept-options#collapsible_throttling, now
 *   https://firebase.google.com/docs/cloud-messaging/throttling-and-quotas "Collapsible message throttling").
 *   A delayed or stored collapsible message is replaced by a newer one with the same key, and "the FCM server can
 *   simultaneously store four different collapsible messages per device, each with a different collapse key. If you
 *   exceed this number, FCM only keeps four collapse keys, with no determining factor on which keys are kept"
 *   (https://firebase.google.com/docs/cloud-messaging/customize-messages/collapsible-message-types). The fake keeps the
 *   four most recently sent keys.
 * - Non-collapsible messages are each delivered; for an offline device "there is a limit of 100 messages that can be
 *   stored without collapsing. If the limit is reached, all stored messages are discarded", and the device is told
 *   so when it is back (same page; the app's `onDeletedMessages`).
 * - `android.ttl` is how long FCM keeps an undelivered message; its default (and maximum) is 4 weeks, and "0s" means
 *   deliver now or drop (https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages#androidconfig).
 * - The registration token names one app instance on one device, so it is the fake's "app per device".
 *
 * Time is the fake's clock, read when a message arrives, when a device goes on- or offline, and when a test looks;
 * delayed messages are delivered at the moments the throttle refills, whatever moment the test looks at them.
 */
export interface FcmDeviceDelivery {
  /** The `name` FCM answered for the message. */
  name: string;
  /** The `message` object as sent. */
  message: Record<string, unknown>;
  sentAt: number;
  deliveredAt: number;
}

/** Per app per device; docs above. */
export const COLLAPSIBLE_BURST = 20;
export const COLLAPSIBLE_REFILL_MS = 3 * 60_000;
export const MAX_STORED_COLLAPSE_KEYS = 4;
export const MAX_STORED_NON_COLLAPSIBLE = 100;
const DEFAULT_TTL_MS = 2_419_200_000;

interface Pending {
  name: string;
  message: Record<string, unknown>;
  sentAt: number;
  expiresAt: number;
  collapseKey: string | null;
}

interface DeviceState {
  online: boolean;
  /** Collapsible-throttle tokens at `refilledAt`. */
  tokens: number;
  refilledAt: number;
  /** Non-collapsible messages held for an offline device, oldest first. */
  stored: Pending[];
  /** Collapsible messages held (offline, or throttled), one per key, in the order their key was last sent. */
  collapsed: Map<string, Pending>;
  delivered: FcmDeviceDelivery[];
  /** Times the 100-message store overflowed while offline (each one a "messages deleted" notice to the app). */
  deletedNotices: number;
}

export class FakeFcmDevices {
  private readonly devices = new Map<string, DeviceState>();

  constructor(private readonly now: () => number) {}

  /** An accepted message to a registration token: delivered now, delayed by the throttle, stored, or dropped. */
  accept(token: string, name: string, message: Record<string, unknown>): void {
    const now = this.now();
    const device = this.advance(token, now);
    const android = isObject(message.android) ? message.android : {};
    const collapseKey = typeof android.collapse_key === 'string' ? android.collapse_key : null;
    const pending: Pending = { name, message, sentAt: now, expiresAt: now + ttlMs(android.ttl), collapseKey };
    if (collapseKey === null) {
      if (device.online) return void device.delivered.push(deliveryOf(pending, now));
      if (pending.expiresAt <= now) return;
      if (device.stored.length >= MAX_STORED_NON_COLLAPSIBLE) {
        device.stored = [];
        device.deletedNotices += 1;
      }
      device.stored.push(pending);
      return;
    }
    if (device.online && device.collapsed.size === 0 && device.tokens >= 1) {
      device.tokens -= 1;
      return void device.delivered.push(deliveryOf(pending, now));
    }
    if (pending.expiresAt <= now) return;
    device.collapsed.delete(collapseKey);
    device.collapsed.set(collapseKey, pending);
    while (device.collapsed.size > MAX_STORED_COLLAPSE_KEYS)
      device.collapsed.delete(device.collapsed.keys().next().value!);
  }

  /** Takes the device off the network (false) or back on (true): what FCM held for it is delivered then. */
  setOnline(token: string, online: boolean): void {
    const now = this.now();
    const device = this.advance(token, now);
    if (device.online === online) return;
    device.online = online;
    if (!online) return;
    for (const pending of device.stored) device.delivered.push(deliveryOf(pending, now));
    device.stored = [];
    this.advance(token, now);
  }

  /** What the app on this device has received so far, in the order it arrived. */
  delivered(token: string): FcmDeviceDelivery[] {
    return [...this.advance(token, this.now()).delivered];
  }

  /** Messages FCM still holds for the device (stored while offline, or delayed by the throttle). */
  pending(token: string): number {
    const device = this.advance(token, this.now());
    return device.stored.length + device.collapsed.size;
  }

  /** How often the device's 100-message store overflowed (the app would be told its messages were deleted). */
  deletedNotices(token: string): number {
    return this.advance(token, this.now()).deletedNotices;
  }

  reset(): void {
    this.devices.clear();
  }

  /** Brings the device to `now`: drops what expired, delivers delayed collapsible messages as the throttle refills. */
  private advance(token: string, now: number): DeviceState {
    let device = this.devices.get(token);
    if (!device) {
      device = {
        online: true,
        tokens: COLLAPSIBLE_BURST,
        refilledAt: now,
        stored: [],
        collapsed: new Map(),
        delivered: [],
        deletedNotices: 0,
      };
      this.devices.set(token, device);
    }
    device.stored = device.stored.filter((pending) => pending.expiresAt > now);
    for (;;) {
      // The moment the throttle next has a message to give (now, or at a refill), and what is still worth delivering then.
      const at =
        device.tokens >= 1 ? device.refilledAt : device.refilledAt + (1 - device.tokens) * COLLAPSIBLE_REFILL_MS;
      for (const [key, pending] of device.collapsed)
        if (pending.expiresAt <= Math.min(at, now)) device.collapsed.delete(key);
      const next = device.collapsed.entries().next().value;
      if (!device.online || !next || at > now) break;
      this.refill(device, at);
      device.tokens -= 1;
      device.collapsed.delete(next[0]);
      device.delivered.push(deliveryOf(next[1], at));
    }
    this.refill(device, now);
    return device;
  }

  private refill(device: DeviceState, at: number): void {
    if (at <= device.refilledAt) return;
    device.tokens = Math.min(COLLAPSIBLE_BURST, device.tokens + (at - device.refilledAt) / COLLAPSIBLE_REFILL_MS);
    device.refilledAt = at;
  }
}

function deliveryOf(pending: Pending, at: number): FcmDeviceDelivery {
  return { name: pending.name, message: pending.message, sentAt: pending.sentAt, deliveredAt: at };
}

/** android.ttl ("3600s", "3.5s"; checked by fcm-message-rules.ts) in ms; absent: FCM's default of 4 weeks. */
function ttlMs(ttl: unknown): number {
  return typeof ttl === 'string' ? Math.round(Number(ttl.slice(0, -1)) * 1000) : DEFAULT_TTL_MS;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
