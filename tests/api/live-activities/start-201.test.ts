import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/store/events-queries.ts';
import type { LiveActivityDispatchPayload } from '../../../src/delivery/live-activities/live-activity-jobs.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { progressActivity, subscribe, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const start = (key: string, body: unknown) => post(t.app, '/api/v1/live-activities', key, body);

describe('POST /api/v1/live-activities → 201', () => {
  it('starts a progress activity and returns the LiveActivity', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const response = await start(account.secretKey, { ...progressActivity('orders'), relevanceScore: 50 });
    const now = new Date(t.clock.now()).toISOString();
    expect(expectSuccess(response, 201)).toMatchObject({
      id: expect.stringMatching(/^lva_[0-9a-z]{26}$/),
      channelCode: 'orders',
      template: 'progress',
      fields: { title: 'Order #42', progress: 0.45, status: 'Packing' },
      alert: { title: 'Your order', body: 'is being packed' },
      staleAt: null,
      relevanceScore: 50,
      status: 'active',
      recipientCount: 0,
      delivery: 'auto',
      deliveryModes: [],
      channelId: null,
      recipientCounts: { broadcast: 0, tokens: 0 },
      createdAt: now,
      updatedAt: now,
      endedAt: null,
      dismissAt: null,
    });
    expect(response.headers['x-quota-limit']).toBe('50000');
    expect(response.headers['x-quota-remaining']).toBe('49999');
  });

  it.each([
    ['progress at 0', 'progress', { title: 'Upload', progress: 0 }],
    ['progress at 1', 'progress', { title: 'Upload', progress: 1, status: 'Done' }],
    [
      'score',
      'score',
      { title: 'Final', home: { name: 'Ajax', score: 2 }, away: { name: 'PSV', score: 1 }, period: '2nd half' },
    ],
    ['steps', 'steps', { title: 'Delivery', currentStep: 2, totalSteps: 4, status: 'On the way' }],
    ['timer with endsAt', 'timer', { title: 'Pizza', endsAt: '2099-01-01T12:30:00Z' }],
    [
      'metrics',
      'metrics',
      {
        title: 'api-1',
        metrics: [
          { label: 'CPU', value: 72.5, unit: '%', trend: 'up' },
          { label: 'Errors', value: 3 },
          { label: 'Latency', value: 120, unit: 'ms', trend: 'flat' },
          { label: 'Queue', value: -1, trend: 'down' },
        ],
        status: 'Deploying',
      },
    ],
    ['status', 'status', { title: 'db-2', state: 'error', message: 'Disk full on db-2' }],
    ['status without a message', 'status', { title: 'db-2', state: 'pending' }],
  ])('accepts the %s template as given', async (_name, template, fields) => {
    const account = await t.newAccount({ channels: ['orders'] });
    const data = expectSuccess(await start(account.secretKey, { channelCode: 'orders', template, fields }), 201);
    expect(data).toMatchObject({ template, status: 'active' });
    expect(data.fields).toEqual(template === 'timer' ? { ...fields, endsAt: '2099-01-01T12:30:00.000Z' } : fields);
  });

  it('turns a timer durationSeconds into an absolute endsAt', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const data = expectSuccess(
      await start(account.secretKey, {
        channelCode: 'orders',
        template: 'timer',
        fields: { title: 'Pizza', durationSeconds: 900 },
      }),
      201,
    );
    expect(data.fields).toEqual({ title: 'Pizza', endsAt: new Date(t.clock.now() + 900_000).toISOString() });
  });

  it('keeps a future staleAt', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const staleAt = new Date(t.clock.now() + 3_600_000).toISOString();
    expect(expectSuccess(await start(account.secretKey, { ...progressActivity('orders'), staleAt }), 201).staleAt).toBe(
      staleAt,
    );
  });

  it('targets iOS subscribers with a push-to-start token and every Android and web subscriber', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    await subscribe(t.app, account.publishableKey, 'orders', 'ios', { pushToStartToken: tokens.ios() });
    await subscribe(t.app, account.publishableKey, 'orders', 'ios');
    await subscribe(t.app, account.publishableKey, 'orders', 'android');
    await subscribe(t.app, account.publishableKey, 'orders', 'web');
    expect(expectSuccess(await start(account.secretKey, progressActivity('orders')), 201).recipientCount).toBe(3);
  });

  it('splits the count by delivery mode: iOS 18 devices on the broadcast channel in auto mode, the rest per device', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    await subscribe(t.app, account.publishableKey, 'orders', 'ios', {
      pushToStartToken: tokens.ios(),
      osVersion: '18.1',
    });
    await subscribe(t.app, account.publishableKey, 'orders', 'ios', {
      pushToStartToken: tokens.ios(),
      osVersion: '17.6',
    });
    await subscribe(t.app, account.publishableKey, 'orders', 'android');
    const auto = expectSuccess(await start(account.secretKey, progressActivity('orders')), 201);
    expect(auto).toMatchObject({
      delivery: 'auto',
      recipientCount: 3,
      recipientCounts: { broadcast: 1, tokens: 2 },
      deliveryModes: ['broadcast', 'tokens'],
    });
    const broadcast = expectSuccess(
      await start(account.secretKey, { ...progressActivity('orders'), delivery: 'broadcast' }),
      201,
    );
    expect(broadcast.recipientCounts).toEqual({ broadcast: 2, tokens: 1 });
    const perToken = expectSuccess(
      await start(account.secretKey, { ...progressActivity('orders'), delivery: 'tokens' }),
      201,
    );
    expect(perToken).toMatchObject({ recipientCounts: { broadcast: 0, tokens: 3 }, deliveryModes: ['tokens'] });
  });

  it('records live_activity.started and counts one unit of quota', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    for (let i = 0; i < 3; i += 1) await subscribe(t.app, account.publishableKey, 'orders');
    const data = expectSuccess(await start(account.secretKey, progressActivity('orders')), 201);
    const events = await listEvents(t.store.db, account.id);
    expect(events.filter((event) => event.type === 'live_activity.started')).toEqual([
      {
        id: expect.any(String),
        type: 'live_activity.started',
        data: expect.objectContaining({ liveActivityId: data.id, channelCode: 'orders', recipientCount: 3 }),
      },
    ]);
    expect(expectSuccess(await get(t.app, '/api/v1/usage', account.secretKey), 200).used).toBe(1);
  });

  it('defaults the alert to the title and a summary of the fields, as APNs requires one on start', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const cases: Array<[string, Record<string, unknown>, { title: string; body: string }]> = [
      [
        'progress',
        { title: 'Upload', progress: 0.456, status: 'Sending' },
        { title: 'Upload', body: '46 % · Sending' },
      ],
      ['timer', { title: 'Pizza', durationSeconds: 600 }, { title: 'Pizza', body: 'Countdown started' }],
      [
        'score',
        { title: 'Final', home: { name: 'Ajax', score: 2 }, away: { name: 'PSV', score: 1 } },
        { title: 'Final', body: 'Ajax 2 – 1 PSV' },
      ],
      ['steps', { title: 'Delivery', currentStep: 2, totalSteps: 4 }, { title: 'Delivery', body: 'Step 2 of 4' }],
      [
        'metrics',
        {
          title: 'api-1',
          metrics: [
            { label: 'CPU', value: 72, unit: '%', trend: 'up' },
            { label: 'Errors', value: 3 },
          ],
        },
        { title: 'api-1', body: 'CPU 72 % ↑ · Errors 3' },
      ],
      [
        'status',
        { title: 'db-2', state: 'error', message: 'Disk full on db-2' },
        { title: 'db-2', body: 'Error · Disk full on db-2' },
      ],
    ];
    for (const [template, fields, alert] of cases) {
      expect(
        expectSuccess(await start(account.secretKey, { channelCode: 'orders', template, fields }), 201).alert,
      ).toEqual(alert);
    }
  });

  it('enqueues the start push and the 8-hour end in the same transaction, with the first event timestamp', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const data = expectSuccess(
      await start(account.secretKey, { ...progressActivity('orders'), relevanceScore: 10 }),
      201,
    );
    const jobs = await t.store.db
      .selectFrom('jobs')
      .selectAll()
      .where('unique_key', 'like', `live_activity.%:${data.id}%`)
      .orderBy('kind')
      .execute();
    expect(jobs.map((job) => [job.kind, job.run_at])).toEqual([
      ['live_activity.dispatch', t.clock.now()],
      ['live_activity.expire', t.clock.now() + 8 * 3600 * 1000],
    ]);
    const { push, platforms } = JSON.parse(jobs[0]!.payload) as LiveActivityDispatchPayload;
    expect(platforms).toEqual(['ios', 'android', 'web']);
    expect(push).toEqual({
      activityId: data.id,
      template: 'progress',
      event: 'start',
      timestamp: t.clock.now(),
      fields: { title: 'Order #42', progress: 0.45, status: 'Packing' },
      alert: { title: 'Your order', body: 'is being packed' },
      staleAt: null,
      dismissAt: null,
      relevanceScore: 10,
      priority: null,
      expiresAt: t.clock.now() + 8 * 3600 * 1000,
    });
  });
});
