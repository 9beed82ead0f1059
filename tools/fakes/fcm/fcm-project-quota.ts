/**
 * FCM's downstream quota (https://firebase.google.com/docs/cloud-messaging/throttling-and-quotas, "Downstream message
 * throttling"): 600,000 messages per minute per project by default; it "measures messages, not requests"; "client
 * errors (HTTP status code 400-499) are counted (excluding 429s)"; the minutes "are not aligned to the clock"; over it
 * FCM "serves HTTP status code 429 RESOURCE_EXHAUSTED ("QUOTA_EXCEEDED") until the quota is refilled in the following
 * minute". The fake counts each project's messages over the last 60 seconds, in one-second buckets.
 */
export const FCM_MESSAGES_PER_MINUTE_PER_PROJECT = 600_000;

export class FakeFcmProjectQuota {
  /** project → epoch second → messages counted in it. */
  private readonly counted = new Map<string, Map<number, number>>();

  constructor(public perMinute: number = FCM_MESSAGES_PER_MINUTE_PER_PROJECT) {}

  /** Whether the project has used up its minute as of `now` (epoch ms). */
  exhausted(projectId: string, now: number): boolean {
    return this.used(projectId, now) >= this.perMinute;
  }

  /** Counts one message of the project, answered with anything but 429. */
  count(projectId: string, now: number): void {
    const second = Math.floor(now / 1000);
    const buckets = this.counted.get(projectId) ?? new Map<number, number>();
    buckets.set(second, (buckets.get(second) ?? 0) + 1);
    this.counted.set(projectId, buckets);
  }

  reset(): void {
    this.counted.clear();
  }

  private used(projectId: string, now: number): number {
    const buckets = this.counted.get(projectId);
    if (!buckets) return 0;
    const oldest = Math.floor(now / 1000) - 59;
    let used = 0;
    for (const [second, count] of buckets) {
      if (second < oldest) buckets.delete(second);
      else used += count;
    }
    return used;
  }
}
