const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "500ms", "5s", "5m", "2h", "1d" into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration like 5s, 5m, 2h or 1d`);
  return Number(match[1]) * UNIT_MS[match[2] as string]!;
}

/** Parses a comma-separated list of durations ("0s,5s,5m") into milliseconds. */
export function parseDurationList(text: string): number[] {
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error('must list at least one duration');
  return parts.map(parseDuration);
}
