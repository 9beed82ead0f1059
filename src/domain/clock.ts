/** Time source, injected wherever time matters so tests move time instead of sleeping. Milliseconds since epoch. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}
