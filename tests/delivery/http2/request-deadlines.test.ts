import { once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RequestDeadlines } from '../../../src/delivery/http2/request.ts';
import { waitFor } from '../../harness/wait-for.ts';

describe("RequestDeadlines (one timer for all of a pool's request timeouts)", () => {
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

  it('on a starved event loop, reads answers already waiting in a socket before it expires their requests', async () => {
    // A worker whose loop was blocked past a deadline must not time out (and so send again) a push whose answer had
    // already arrived: the answer is in the socket, and only the poll phase reads it, after the timers phase.
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    const [serverSide] = await accepted;
    try {
      const expired: string[] = [];
      const deadlines = new RequestDeadlines<{ name: string; deadline: number }>(10, (item) => expired.push(item.name));
      const answered = { name: 'answered', deadline: 0 };
      const unanswered = { name: 'unanswered', deadline: 0 };
      client.on('data', () => {
        answered.deadline = 0; // what the pool does when a request's answer arrives
      });
      deadlines.arm(answered);
      deadlines.arm(unanswered);
      serverSide.write('answer');
      // The loop is starved past both deadlines while the answer waits in the client's socket.
      const until = performance.now() + 60;
      while (performance.now() < until);
      await waitFor(() => expired.length > 0, 5_000, 'the unanswered request to expire');
      expect(expired).toEqual(['unanswered']);
      expect(answered.deadline).toBe(0);
      deadlines.stop();
    } finally {
      client.destroy();
      serverSide.destroy();
      server.close();
    }
  });
});
