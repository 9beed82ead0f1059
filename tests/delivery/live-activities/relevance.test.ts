import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * Relevance and staleness as the device holds them (docs/live-activities.md, "Relevance", "Staleness and auto-end"): the fake
 * APNs device keeps each content's `relevance-score` (0 when a content has none) and `stale-date` (none when a content
 * has none), so what Clarion sends with every event is what iOS orders and greys the activity by.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

const seconds = (ms: number) => Math.floor(ms / 1000);

describe('Live Activity relevance', () => {
  it('is given at the start, kept by each event, changed by relevanceScore, and set by priority when none is given', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const ios = await h.iosDevice(account, 'orders', { osVersion: '17.5' });
    const staleAt = h.clock.now() + 30 * 60_000;
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'orders',
        template: 'progress',
        fields: { title: 'Order 9', progress: 0.1 },
        relevanceScore: 50,
        staleAt: new Date(staleAt).toISOString(),
      })
    ).body.data.id as string;
    await h.settle();
    const device = await h.deviceActivity(ios, id);
    expect(device).toMatchObject({ relevanceScore: 50, staleDate: seconds(staleAt) });
    await waitFor(() => h.reporter.reports.some((report) => report.liveActivityId === id), 10_000, 'the token report');

    const update = async (body: Record<string, unknown>) => {
      h.clock.advance(1_000);
      const response = await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
        fields: { progress: 0.5 },
        ...body,
      });
      expect(response.statusCode).toBe(200);
      await h.settle();
      return response.body.data.relevanceScore as number;
    };
    // A plain update repeats the relevance (iOS would take 0 from a content without one); its content has no stale date.
    expect(await update({})).toBe(50);
    expect(device).toMatchObject({ relevanceScore: 50, staleDate: null });
    expect(await update({ relevanceScore: 90 })).toBe(90);
    expect(device.relevanceScore).toBe(90);
    expect(await update({ priority: 'high' })).toBe(100);
    expect(device.relevanceScore).toBe(100);
    expect(await update({ priority: 'low' })).toBe(0);
    expect(device.relevanceScore).toBe(0);
    expect(await update({ priority: 'high', relevanceScore: 30 })).toBe(30);
    expect(device.relevanceScore).toBe(30);
    expect((await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data.relevanceScore).toBe(30);
  });

  it('refuses a relevanceScore outside 0–100 on an update, and changes nothing', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'orders',
        template: 'progress',
        fields: { title: 'Order 10', progress: 0.1 },
      })
    ).body.data.id as string;
    for (const relevanceScore of [-1, 101, '50']) {
      const response = await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
        fields: { progress: 0.5 },
        relevanceScore,
      });
      expect([response.statusCode, response.body.error.code]).toEqual([400, 'validation_failed']);
    }
    expect((await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data).toMatchObject({
      relevanceScore: null,
      fields: { progress: 0.1 },
    });
  });
});
