import type { FakeLiveActivities, FakeLiveActivity } from './apns-live-activities.ts';

/**
 * Plays the iOS app's part after a push-to-start: each time the fake's system mints an update token for an activity
 * (start with `input-push-token: 1`, or a rotation), the "app" reports it to Clarion's public endpoint with its
 * publishable key, exactly as docs/live-activities.md tells apps to:
 *
 *   POST /api/v1/live-activities/{attributes.activityId}/tokens
 *   {"subscriberId": "sub_…", "token": "<hex>", "deviceToken": "<the APNs device token it registered with>"}
 *
 * The device knows its own subscriber id (POST /subscribers returned it), the device token it registered with (the
 * proof a publishable key must send, docs/api.md "Subscribers") and its app's publishable key, so the caller maps
 * push-to-start tokens to all three. `post` defaults to fetch against `baseUrl`; tests pass one that uses inject().
 */
export interface TokenReporterOptions {
  /** The device that owns a push-to-start token: its subscriber id and app key; undefined: this device stays silent. */
  deviceFor(
    pushToStartToken: string,
  ): { subscriberId: string; deviceToken: string; publishableKey: string } | undefined;
  /** Clarion's base URL, e.g. http://localhost:3000 (with the default `post`). */
  baseUrl?: string;
  post?: (path: string, body: unknown, headers: Record<string, string>) => Promise<{ status: number }>;
}

export interface TokenReport {
  liveActivityId: string;
  subscriberId: string;
  token: string;
  /** Clarion's answer (201 first token, 200 replaced), or 0 when the request failed. */
  status: number;
}

export interface TokenReporter {
  /** Every report made, oldest first (live array). */
  readonly reports: readonly TokenReport[];
  /** Resolves when every report started so far has been answered. */
  settled(): Promise<void>;
  stop(): void;
}

export function reportLiveActivityTokens(
  liveActivities: FakeLiveActivities,
  options: TokenReporterOptions,
): TokenReporter {
  const reports: TokenReport[] = [];
  const pending = new Set<Promise<void>>();
  const post = options.post ?? fetchPoster(options.baseUrl);

  const report = async (activity: FakeLiveActivity) => {
    const device = options.deviceFor(activity.pushToStartToken);
    const liveActivityId = activity.attributes.activityId;
    if (device === undefined || typeof liveActivityId !== 'string') return;
    const { subscriberId, deviceToken, publishableKey } = device;
    const entry: TokenReport = { liveActivityId, subscriberId, token: activity.updateToken, status: 0 };
    try {
      const response = await post(
        `/api/v1/live-activities/${encodeURIComponent(liveActivityId)}/tokens`,
        { subscriberId, token: activity.updateToken, deviceToken },
        { authorization: `Bearer ${publishableKey}`, 'content-type': 'application/json' },
      );
      entry.status = response.status;
    } finally {
      reports.push(entry);
    }
  };

  const unsubscribe = liveActivities.onUpdateToken((activity) => {
    const done = report(activity)
      .catch(() => {})
      .finally(() => pending.delete(done));
    pending.add(done);
  });

  return {
    reports,
    settled: async () => {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    stop: unsubscribe,
  };
}

function fetchPoster(baseUrl: string | undefined): NonNullable<TokenReporterOptions['post']> {
  if (!baseUrl) throw new Error('reportLiveActivityTokens: give baseUrl (Clarion, e.g. http://localhost:3000) or post');
  return async (path, body, headers) => {
    const response = await fetch(new URL(path, baseUrl), { method: 'POST', headers, body: JSON.stringify(body) });
    await response.arrayBuffer();
    return { status: response.status };
  };
}
