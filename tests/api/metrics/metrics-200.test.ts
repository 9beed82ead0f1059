import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import { send } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ metricsToken: TOKEN });
});
afterAll(async () => t.close());

/** The value of one sample line (`name{labels} value`) in the exposition, or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics → 200 (CLARION_METRICS_TOKEN set, the right Bearer token)', () => {
  it('serves the Prometheus text format with only clarion_ names', async () => {
    const response = await get(t.app, '/metrics', TOKEN);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const names = [...String(response.body).matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]);
    expect(names).toContain('clarion_http_request_duration_seconds');
    expect(names).toContain('clarion_notifications_accepted_total');
    expect(names.filter((name) => !name!.startsWith('clarion_'))).toEqual([]);
  });

  it('counts requests by route pattern (not URL) and status, accepted notifications and quota refusals', async () => {
    const account = await t.newAccount({ channels: ['news'], plan: 'starter', limit: 2 });
    const id = await send(t.app, account.secretKey, 'news');
    await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Later',
      sendAt: new Date(t.clock.now() + 3_600_000).toISOString(),
    });
    expect(
      (await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'One too many' }))
        .statusCode,
    ).toBe(429);
    expect((await get(t.app, `/api/v1/notifications/${id}`, account.secretKey)).statusCode).toBe(200);
    expect((await get(t.app, '/no/such/path', null)).statusCode).toBe(404);

    const text = String((await get(t.app, '/metrics', TOKEN)).body);
    expect(sample(text, 'clarion_notifications_accepted_total{timing="now"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'clarion_notifications_accepted_total{timing="scheduled"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'clarion_quota_rejections_total')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'clarion_http_errors_total{code="quota_exceeded"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'clarion_http_errors_total{code="not_found"}')).toBeGreaterThanOrEqual(1);
    expect(
      sample(
        text,
        'clarion_http_request_duration_seconds_count{method="POST",route="/api/v1/notifications",status_code="201"}',
      ),
    ).toBeGreaterThanOrEqual(2);
    expect(
      sample(
        text,
        'clarion_http_request_duration_seconds_count{method="POST",route="/api/v1/notifications",status_code="429"}',
      ),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(
        text,
        'clarion_http_request_duration_seconds_count{method="GET",route="/api/v1/notifications/:id",status_code="200"}',
      ),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'clarion_http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"}'),
    ).toBeGreaterThanOrEqual(1);
    // No label holds an id, an account or a URL.
    expect(text).not.toContain(id);
    expect(text).not.toContain(account.id);
    expect(text).not.toContain('/no/such/path');
  });

  it('reads the queue when scraped (at most once per 5 s): the accepted notifications wait as due and scheduled dispatch jobs', async () => {
    t.clock.advance(10_000); // past the previous scrape's cached reading
    const text = String((await get(t.app, '/metrics', TOKEN)).body);
    expect(sample(text, 'clarion_queue_jobs{kind="notification.dispatch",state="due"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'clarion_queue_jobs{kind="notification.dispatch",state="scheduled"}')).toBeGreaterThanOrEqual(
      1,
    );
    expect(sample(text, 'clarion_queue_oldest_due_job_age_seconds')).toBeGreaterThanOrEqual(10);

    const account = await t.newAccount({ channels: ['news'] });
    await send(t.app, account.secretKey, 'news');
    const cached = String((await get(t.app, '/metrics', TOKEN)).body);
    expect(sample(cached, 'clarion_queue_jobs{kind="notification.dispatch",state="due"}')).toBe(
      sample(text, 'clarion_queue_jobs{kind="notification.dispatch",state="due"}'),
    );
  });
});
