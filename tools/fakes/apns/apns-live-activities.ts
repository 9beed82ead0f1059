import { randomBytes } from 'node:crypto';

/**
 * The devices' side of Live Activities, as the fake APNs models it (docs/protocols.md 2.1–2.3), so a test can drive a whole
 * lifecycle through the real protocol:
 * - a delivered `event: start` with `input-push-token: 1` starts an activity on the device that owns the
 *   push-to-start token, and the system mints a per-activity update token, which listeners hear about (a device app
 *   reads `pushTokenUpdates` and reports it to its server; see apns-live-activity-reporter.ts);
 * - `update` and `end` pushes to that update token apply unless their `timestamp` is older than the last applied one:
 *   "If this is older than a previous update or push payload, the system ignores this update"
 *   (https://developer.apple.com/documentation/activitykit/activity/update(_:alertconfiguration:timestamp:)), so an
 *   equal one applies, in the order it arrives;
 * - a `timestamp` more than 8 hours ahead of the device's clock is dropped, start, update or end: "timestamps beyond
 *   8 hours (the max lifetime of a Live Activity) will also be dropped" (an Apple engineer,
 *   https://developer.apple.com/forums/thread/776165, about
 *   https://developer.apple.com/documentation/activitykit/starting-and-updating-live-activities-with-activitykit-push-notifications);
 * - once an activity has ended (an `end` push, or endActivity(): the user dismissed it, or the system's 8 hours), or
 *   its token rotated (rotateUpdateToken()), pushes to the old update token answer 410 Unregistered.
 * - iOS 18 broadcast: a start carrying `input-push-channel` instead subscribes the activity to that channel (no
 *   update token is minted); every broadcast the fake accepts on the channel reaches each activity subscribed to it,
 *   with the same rules as a push to a token (docs/protocols.md 2.5).
 * - each applied content (start, update, end) brings its own `stale-date` (epoch seconds; the activity shows as stale
 *   from then, Apple's ActivityContent.staleDate) and `relevance-score` (a number; 0 when absent, Apple's
 *   ActivityContent.init(state:staleDate:relevanceScore:), "orders several activities of the same app"): a content
 *   without them has none and 0, as iOS decodes it (docs/protocols.md 2.2); either of another type cannot be decoded,
 *   and the push is not applied (a start starts nothing).
 * APNs itself does not look inside `aps`; these are the device's rules, recorded per activity for tests.
 */
export interface FakeLiveActivityEvent {
  event: string;
  timestamp: number | null;
  /** False when the device ignored it: an older timestamp, or the activity had ended. */
  applied: boolean;
  aps: Record<string, unknown>;
}

export interface FakeLiveActivity {
  /** The push-to-start token the start came to (the device's identity here). */
  pushToStartToken: string;
  /** The current per-activity update token (lower-case hex); '' for an activity subscribed to a channel instead. */
  updateToken: string;
  /** The broadcast channel the activity is subscribed to (`input-push-channel`), or null for a token activity. */
  channelId: string | null;
  /** Earlier update tokens of this activity, now answering 410. */
  retiredTokens: string[];
  attributesType: string;
  attributes: Record<string, unknown>;
  contentState: unknown;
  /** The last applied `aps.timestamp`. */
  timestamp: number;
  state: 'active' | 'ended';
  dismissalDate: number | null;
  /** The current content's `stale-date` (epoch seconds), or null. */
  staleDate: number | null;
  /** The current content's `relevance-score`: 0 when it came without one. */
  relevanceScore: number;
  events: FakeLiveActivityEvent[];
}

/** A start the device refused, with why (e.g. no alert): iOS starts nothing then. */
export interface FakeRefusedStart {
  token: string;
  problem: string;
  aps: unknown;
}

/** Live Activity update tokens are longer than device tokens (docs/protocols.md 1.3 notes on length): 80 bytes here. */
const UPDATE_TOKEN_BYTES = 80;
/** How far ahead of the device's clock a `timestamp` may be (the forum answer above). */
const MAX_TIMESTAMP_LEAD_SECONDS = 8 * 3600;

export class FakeLiveActivities {
  readonly activities: FakeLiveActivity[] = [];
  readonly refusedStarts: FakeRefusedStart[] = [];
  private readonly byToken = new Map<string, FakeLiveActivity>();
  private readonly listeners = new Set<(activity: FakeLiveActivity) => void>();

  /** `now`: the devices' clock (epoch ms), the fake server's. */
  constructor(private readonly now: () => number = () => Date.now()) {}

  /** True when `token` is an update token whose activity ended or rotated away: APNs answers 410 Unregistered. */
  isGone(token: string): boolean {
    const activity = this.byToken.get(token.toLowerCase());
    return activity !== undefined && (activity.state === 'ended' || activity.updateToken !== token.toLowerCase());
  }

  /**
   * A liveactivity push APNs accepted for `token`: applies it as the device would. Returns the activity when this
   * push started one, so the server announces its update token once the response has been sent.
   */
  accept(token: string, payload: unknown): FakeLiveActivity | null {
    const aps = apsOf(payload);
    if (!aps) return null;
    const activity = this.byToken.get(token.toLowerCase());
    if (activity) {
      this.apply(activity, aps);
      return null;
    }
    return aps.event === 'start' ? this.start(token.toLowerCase(), aps) : null;
  }

  /**
   * A broadcast APNs accepted on `channelId`: every activity subscribed to the channel applies it as it would a push
   * to its token. Returns how many activities it reached.
   */
  broadcast(channelId: string, payload: unknown): number {
    const aps = apsOf(payload);
    const subscribed = this.activities.filter((activity) => activity.channelId === channelId);
    if (aps) for (const activity of subscribed) this.apply(activity, aps);
    return subscribed.length;
  }

  /** The activities subscribed to a channel, for tests. */
  onChannel(channelId: string): FakeLiveActivity[] {
    return this.activities.filter((activity) => activity.channelId === channelId);
  }

  /** Calls `listener` with the activity each time the system mints an update token (start, rotation). */
  onUpdateToken(listener: (activity: FakeLiveActivity) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  announce(activity: FakeLiveActivity): void {
    for (const listener of this.listeners) listener(activity);
  }

  /** The user (or the system) ends the activity on the device: its update token answers 410 from now on. */
  endActivity(updateToken: string): void {
    this.require(updateToken).state = 'ended';
  }

  /** The system replaces the activity's update token (docs/protocols.md 2.3: tokens can change); the old one answers 410. */
  rotateUpdateToken(updateToken: string): FakeLiveActivity {
    const activity = this.require(updateToken);
    activity.retiredTokens.push(activity.updateToken);
    activity.updateToken = randomBytes(UPDATE_TOKEN_BYTES).toString('hex');
    this.byToken.set(activity.updateToken, activity);
    this.announce(activity);
    return activity;
  }

  /** The first activity that matches, e.g. by `pushToStartToken` and `attributes.activityId`. */
  find(predicate: (activity: FakeLiveActivity) => boolean): FakeLiveActivity | undefined {
    return this.activities.find(predicate);
  }

  reset(): void {
    this.activities.length = 0;
    this.refusedStarts.length = 0;
    this.byToken.clear();
  }

  private start(token: string, aps: Record<string, unknown>): FakeLiveActivity | null {
    const problem =
      startProblem(aps) ?? (this.farAhead(aps.timestamp as number) ? 'aps.timestamp is more than 8 hours ahead' : null);
    if (problem) {
      this.refusedStarts.push({ token, problem, aps });
      return null;
    }
    const channelId = typeof aps['input-push-channel'] === 'string' ? aps['input-push-channel'] : null;
    const activity: FakeLiveActivity = {
      pushToStartToken: token,
      // Subscribed to a channel, the activity gets its updates from broadcasts: the system mints no token for it.
      updateToken: channelId === null ? randomBytes(UPDATE_TOKEN_BYTES).toString('hex') : '',
      channelId,
      retiredTokens: [],
      attributesType: aps['attributes-type'] as string,
      attributes: aps.attributes as Record<string, unknown>,
      contentState: aps['content-state'],
      timestamp: aps.timestamp as number,
      state: 'active',
      dismissalDate: null,
      ...contentTimes(aps),
      events: [{ event: 'start', timestamp: aps.timestamp as number, applied: true, aps }],
    };
    this.activities.push(activity);
    if (channelId !== null) return null;
    this.byToken.set(activity.updateToken, activity);
    // Without input-push-token the system mints no update token, so nothing is announced (the server cannot update it).
    return aps['input-push-token'] === 1 ? activity : null;
  }

  private apply(activity: FakeLiveActivity, aps: Record<string, unknown>): void {
    const timestamp = typeof aps.timestamp === 'number' ? aps.timestamp : null;
    const known = aps.event === 'update' || aps.event === 'end';
    if (
      activity.state !== 'active' ||
      timestamp === null ||
      timestamp < activity.timestamp ||
      this.farAhead(timestamp) ||
      !known ||
      contentProblem(aps) !== null
    ) {
      activity.events.push({ event: String(aps.event), timestamp, applied: false, aps });
      return;
    }
    activity.events.push({ event: String(aps.event), timestamp, applied: true, aps });
    activity.timestamp = timestamp;
    if (aps['content-state'] !== undefined) activity.contentState = aps['content-state'];
    Object.assign(activity, contentTimes(aps));
    if (aps.event === 'end') {
      activity.state = 'ended';
      activity.dismissalDate = typeof aps['dismissal-date'] === 'number' ? aps['dismissal-date'] : null;
    }
  }

  private farAhead(timestamp: number): boolean {
    return timestamp > this.now() / 1000 + MAX_TIMESTAMP_LEAD_SECONDS;
  }

  private require(updateToken: string): FakeLiveActivity {
    const activity = this.byToken.get(updateToken.toLowerCase());
    if (!activity) throw new Error(`no fake Live Activity has the update token ${updateToken}`);
    return activity;
  }
}

/** What iOS needs to start an activity from a push (docs/protocols.md 2.2; alert is required on start). */
function startProblem(aps: Record<string, unknown>): string | null {
  if (typeof aps.timestamp !== 'number') return 'aps.timestamp must be a number (epoch seconds)';
  if (typeof aps['content-state'] !== 'object' || aps['content-state'] === null)
    return 'aps.content-state must be an object';
  if (typeof aps['attributes-type'] !== 'string') return 'aps.attributes-type must name the ActivityAttributes type';
  if (typeof aps.attributes !== 'object' || aps.attributes === null) return 'aps.attributes must be an object';
  if (typeof aps.alert !== 'object' || aps.alert === null) return 'aps.alert is required on start';
  return contentProblem(aps);
}

/** ActivityContent's optional members of another type than iOS decodes (docs/protocols.md 2.2). */
function contentProblem(aps: Record<string, unknown>): string | null {
  if (aps['stale-date'] !== undefined && typeof aps['stale-date'] !== 'number')
    return 'aps.stale-date must be a number (epoch seconds)';
  if (aps['relevance-score'] !== undefined && typeof aps['relevance-score'] !== 'number')
    return 'aps.relevance-score must be a number';
  return null;
}

/** What a content sets besides its state: its stale date (none without one) and its relevance (0 without one). */
function contentTimes(aps: Record<string, unknown>): { staleDate: number | null; relevanceScore: number } {
  return {
    staleDate: typeof aps['stale-date'] === 'number' ? aps['stale-date'] : null,
    relevanceScore: typeof aps['relevance-score'] === 'number' ? aps['relevance-score'] : 0,
  };
}

function apsOf(payload: unknown): Record<string, unknown> | null {
  const aps = (payload as { aps?: unknown } | null)?.aps;
  return typeof aps === 'object' && aps !== null && !Array.isArray(aps) ? (aps as Record<string, unknown>) : null;
}
