/**
 * iOS versions as apps report them (`UIDevice.current.systemVersion`: "18", "18.2", "17.4.1"). Live Activity broadcast
 * channels need iOS/iPadOS 18 (docs/protocols.md 2.5), so `auto` delivery compares the major version. Pure.
 */
export const BROADCAST_MIN_IOS_MAJOR = 18;

/** [major, minor, patch], or null when it is not a version. */
export function parseOsVersion(value: string): [number, number, number] | null {
  const match = /^(\d{1,3})(?:\.(\d{1,3}))?(?:\.(\d{1,3}))?$/.exec(value.trim());
  if (!match) return null;
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

/** True when a device reporting `osVersion` can subscribe a Live Activity to a broadcast channel; unknown → false. */
export function supportsBroadcast(osVersion: string | null): boolean {
  const parsed = osVersion === null ? null : parseOsVersion(osVersion);
  return parsed !== null && parsed[0] >= BROADCAST_MIN_IOS_MAJOR;
}
