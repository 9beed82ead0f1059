/**
 * A channel's frequency cap: each subscriber gets at most `count` of the channel's notifications in any rolling
 * `periodSeconds`; a notification due to a subscriber at its cap skips it as `frequency_capped` (skip-reasons.ts).
 * A send with `ignoreFrequencyCap` passes the cap and still counts towards it. Silent pushes and Live Activities are
 * neither capped nor counted: the cap is about what a person sees.
 */
export interface FrequencyCap {
  count: number;
  periodSeconds: number;
}

export const FREQUENCY_CAP_MAX_COUNT = 1000;
export const FREQUENCY_CAP_MIN_PERIOD_SECONDS = 60;
/** 30 days: how long a delivery is remembered at most. */
export const FREQUENCY_CAP_MAX_PERIOD_SECONDS = 30 * 24 * 3600;

/** A channel row's cap columns → the cap, or null when the channel has none. */
export function frequencyCapOf(row: {
  frequency_cap_count: number | null;
  frequency_cap_period_seconds: number | null;
}): FrequencyCap | null {
  if (row.frequency_cap_count === null || row.frequency_cap_period_seconds === null) return null;
  return { count: row.frequency_cap_count, periodSeconds: row.frequency_cap_period_seconds };
}

/** "COUNT/SECONDS" (e.g. "3/86400", the command line's form) → the cap, or null when it is not one within the limits. */
export function parseFrequencyCap(text: string): FrequencyCap | null {
  const match = /^(\d{1,4})\/(\d{1,7})$/.exec(text.trim());
  if (!match) return null;
  const cap = { count: Number(match[1]), periodSeconds: Number(match[2]) };
  const fits =
    cap.count >= 1 &&
    cap.count <= FREQUENCY_CAP_MAX_COUNT &&
    cap.periodSeconds >= FREQUENCY_CAP_MIN_PERIOD_SECONDS &&
    cap.periodSeconds <= FREQUENCY_CAP_MAX_PERIOD_SECONDS;
  return fits ? cap : null;
}
