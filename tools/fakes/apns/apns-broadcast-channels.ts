import { randomBytes } from 'node:crypto';

/**
 * The APNs broadcast channels of one fake environment (docs/protocols.md 2.5): what the channel management API
 * creates, lists, reads and deletes, per app (bundle id). Apple allows up to 10,000 channels per app in each
 * environment and keeps a channel until it is deleted, subscribers or not; creating one more answers
 * CannotCreateChannelConfig. Tests lower the limit with `setLimit` to reach it.
 */
export interface FakeBroadcastChannel {
  /** Base64, as APNs returns it in `apns-channel-id`. */
  id: string;
  bundleId: string;
  /** 0: no message stored for offline devices; 1: the most recent one is stored. */
  messageStoragePolicy: 0 | 1;
  createdAt: number;
}

/** Apple's documented limit per app and environment. */
export const APNS_CHANNELS_PER_APP = 10_000;

/** A channel id as APNs formats it: base64, bounded length (a longer or non-base64 one is BadChannelId). */
export function isWellFormedChannelId(value: string): boolean {
  return value.length <= 64 && /^[A-Za-z0-9+/]{4,}={0,2}$/.test(value);
}

export class FakeBroadcastChannels {
  private readonly channels = new Map<string, FakeBroadcastChannel>();
  private limit = APNS_CHANNELS_PER_APP;

  setLimit(limit: number): void {
    this.limit = limit;
  }

  /** The new channel, or null when the app already has as many as the limit allows. */
  create(bundleId: string, messageStoragePolicy: 0 | 1, now: number): FakeBroadcastChannel | null {
    if (this.list(bundleId).length >= this.limit) return null;
    const channel: FakeBroadcastChannel = {
      id: randomBytes(16).toString('base64'),
      bundleId,
      messageStoragePolicy,
      createdAt: now,
    };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** The app's channel with this id; a channel of another app is not found (channels are per app). */
  find(bundleId: string, id: string): FakeBroadcastChannel | undefined {
    const channel = this.channels.get(id);
    return channel?.bundleId === bundleId ? channel : undefined;
  }

  list(bundleId: string): FakeBroadcastChannel[] {
    return [...this.channels.values()].filter((channel) => channel.bundleId === bundleId);
  }

  /** Every channel of every app, for tests. */
  all(): FakeBroadcastChannel[] {
    return [...this.channels.values()];
  }

  delete(bundleId: string, id: string): boolean {
    if (!this.find(bundleId, id)) return false;
    return this.channels.delete(id);
  }

  reset(): void {
    this.channels.clear();
    this.limit = APNS_CHANNELS_PER_APP;
  }
}
