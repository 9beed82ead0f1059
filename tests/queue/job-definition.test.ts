import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineJob } from '../../src/queue/job-definition.ts';
import { openQueueFixture, startWorker, waitFor, type QueueFixture } from './queue-harness.ts';

let f: QueueFixture;
beforeAll(async () => {
  f = await openQueueFixture();
});
afterAll(async () => f.close());

interface Greeting {
  name: string;
  times: number;
}

describe('defineJob', () => {
  it('enqueues a typed payload and hands the handler the same payload, parsed once', async () => {
    const greet = defineJob<Greeting>(f.kind('greet'));
    const seen: Greeting[] = [];
    const worker = startWorker(f, { [greet.kind]: greet.handler(async (payload) => void seen.push(payload)) });
    await worker.start();
    try {
      const id = await greet.enqueue(
        f.queue,
        f.testStore.store.db,
        { name: 'Ada', times: 2 },
        { uniqueKey: `${greet.kind}:ada` },
      );
      expect(
        await greet.enqueue(
          f.queue,
          f.testStore.store.db,
          { name: 'Ada', times: 3 },
          { uniqueKey: `${greet.kind}:ada` },
        ),
      ).toBe(id);
      await waitFor(() => seen.length === 1);
      expect(seen).toEqual([{ name: 'Ada', times: 2 }]);
      expect(greet.payloadOf((await f.queue.findJob(id))!)).toEqual({ name: 'Ada', times: 2 });
    } finally {
      await worker.stop();
    }
  });

  it('replaces a running job payload under its lease only', async () => {
    const step = defineJob<{ cursor: number }>(f.kind('step'));
    const id = await step.enqueue(f.queue, f.testStore.store.db, { cursor: 0 });
    const [job] = await f.queue.claim({ owner: 'a', kinds: [step.kind], limit: 1, leaseMs: 10_000 });
    expect(job!.id).toBe(id);
    expect(await step.updatePayload(f.queue, f.testStore.store.db, job!, 'b', { cursor: 9 })).toBe(false);
    expect(await step.updatePayload(f.queue, f.testStore.store.db, job!, 'a', { cursor: 5 })).toBe(true);
    expect(step.payloadOf((await f.queue.findJob(id))!)).toEqual({ cursor: 5 });
  });
});
