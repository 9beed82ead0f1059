import { describe, expect, it } from 'vitest';
import { RequestDeadlines } from '../../../src/delivery/http2-request-deadlines.ts';
import { waitFor } from '../../harness/wait-for.ts';

describe('RequestDeadlines (one timer for all of a pool\'s request timeouts)', () => {
  it('expires armed items in order, skips settled and re-armed ones, and expires a re-armed one at its new deadline', async () => {
    const expired: string[] = [];
    const deadlines = new RequestDeadlines<{ name: string; deadline: number }>(20, (item) => expired.push(item.name));
    const first = { name: 'first', deadline: 0 };
    const settled = { name: 'settled', deadline: 0 };
    const rearmed = { name: 'rearmed', deadline: 0 };
    const last = { name: 'last', deadline: 0 };
    deadlines.arm(first);
    deadlines.arm(settled);
    deadlines.arm(rearmed);
    settled.deadline = 0; // what the pool does when a request is answered
    deadlines.arm(rearmed); // sent on a stream: its wait starts again
    deadlines.arm(last);
    await waitFor(() => expired.length === 3, 5_000, 'three expiries');
    expect(expired).toEqual(['first', 'rearmed', 'last']);
    expect([first, rearmed, last].map((item) => item.deadline)).toEqual([0, 0, 0]);
    deadlines.stop();
  });

  it('expires nothing after stop()', async () => {
    const expired: string[] = [];
    const deadlines = new RequestDeadlines<{ name: string; deadline: number }>(1, (item) => expired.push(item.name));
    deadlines.arm({ name: 'never', deadline: 0 });
    deadlines.stop();
    const marker = new RequestDeadlines<{ name: string; deadline: number }>(5, (item) => expired.push(item.name));
    marker.arm({ name: 'marker', deadline: 0 });
    await waitFor(() => expired.length > 0, 5_000, 'the marker');
    expect(expired).toEqual(['marker']);
  });
});
