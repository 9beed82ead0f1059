import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountPlan } from '../../../src/store/accounts-queries.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../harness/test-app.ts';
import { sample } from './relay-samples.ts';

/**
 * POST /api/v1/relays/alertmanager?channelCode=… (docs/live-activities.md, "Relays"): Alertmanager's own webhook
 * payloads (samples/) drive one `status` activity per alert.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const url = (channelCode = 'ops') => `/api/v1/relays/alertmanager?channelCode=${channelCode}`;
const firing = () => sample('alertmanager-firing').json;
const resolved = () => sample('alertmanager-resolved').json;

async function activities(account: TestAccount) {
  return expectSuccess(await get(t.app, '/api/v1/live-activities?channelCode=ops', account.secretKey), 200);
}

async function used(account: TestAccount): Promise<number> {
  return expectSuccess(await get(t.app, '/api/v1/usage', account.secretKey), 200).used;
}

describe('POST /api/v1/relays/alertmanager', () => {
  it('→ 200: each firing alert starts a status activity, keyed by its fingerprint', async () => {
    const account = await t.newAccount({ channels: ['ops'] });
    const { results } = expectSuccess(await post(t.app, url(), account.secretKey, firing()), 200);
    expect(results).toEqual([
      { key: 'alertmanager-8f2b6c1d0e9a7b34', event: 'started', liveActivityId: expect.stringMatching(/^lva_/) },
      { key: 'alertmanager-1a30ba71cca2921f', event: 'started', liveActivityId: expect.stringMatching(/^lva_/) },
    ]);
    const byKey = Object.fromEntries(
      (await activities(account)).map((activity: any) => [activity.streamKey, activity]),
    );
    expect(byKey['alertmanager-8f2b6c1d0e9a7b34']).toMatchObject({
      template: 'status',
      status: 'active',
      fields: { title: 'DiskFull · db-2:9100', state: 'error', message: 'Disk 97% full on db-2' },
    });
    // No summary: the description; severity warning: the state warning.
    expect(byKey['alertmanager-1a30ba71cca2921f'].fields).toEqual({
      title: 'DiskFull · db-3:9100',
      state: 'warning',
      message: '/var/lib/postgresql has 12% space left.',
    });
  });

  it('repeats cost nothing, a change updates, resolved ends as ok, and firing again starts anew', async () => {
    const account = await t.newAccount({ channels: ['ops'] });
    const started = expectSuccess(await post(t.app, url(), account.secretKey, firing()), 200).results;
    const before = await used(account);
    // Alertmanager repeats the group every repeat_interval with nothing new.
    t.clock.advance(60_000);
    const repeated = expectSuccess(await post(t.app, url(), account.secretKey, firing()), 200).results;
    expect(repeated.map((result: any) => result.event)).toEqual(['unchanged', 'unchanged']);
    expect(await used(account)).toBe(before);

    const worse = firing();
    worse.alerts[1].labels.severity = 'critical';
    t.clock.advance(60_000);
    const changed = expectSuccess(await post(t.app, url(), account.secretKey, worse), 200).results;
    expect(changed.map((result: any) => result.event)).toEqual(['unchanged', 'updated']);
    expect(await used(account)).toBe(before + 1);

    t.clock.advance(60_000);
    const ended = expectSuccess(await post(t.app, url(), account.secretKey, resolved()), 200).results;
    expect(ended).toEqual([{ key: started[0].key, event: 'ended', liveActivityId: started[0].liveActivityId }]);
    const endedView = expectSuccess(
      await get(t.app, `/api/v1/live-activities/${started[0].liveActivityId}`, account.secretKey),
      200,
    );
    expect(endedView).toMatchObject({
      status: 'ended',
      fields: { state: 'ok', message: 'Resolved: Disk 97% full on db-2' },
    });
    // A resolution delivered twice has nothing left to end.
    expect(expectSuccess(await post(t.app, url(), account.secretKey, resolved()), 200).results[0].event).toBe(
      'ignored',
    );

    t.clock.advance(60_000);
    const again = expectSuccess(await post(t.app, url(), account.secretKey, firing()), 200).results;
    expect(again[0]).toMatchObject({ key: started[0].key, event: 'started' });
    expect(again[0].liveActivityId).not.toBe(started[0].liveActivityId);
  });

  it('keys an alert without a fingerprint (an older Alertmanager) by its labels, the same each time', async () => {
    const account = await t.newAccount({ channels: ['ops'] });
    const old = firing();
    for (const alert of old.alerts) delete alert.fingerprint;
    const first = expectSuccess(await post(t.app, url(), account.secretKey, old), 200).results;
    expect(first[0].key).toMatch(/^alertmanager-[0-9a-f]{16}$/);
    expect(first[0].key).not.toBe(first[1].key);
    const second = expectSuccess(await post(t.app, url(), account.secretKey, old), 200).results;
    expect(second.map((result: any) => [result.key, result.event])).toEqual(
      first.map((result: any) => [result.key, 'unchanged']),
    );
  });

  it('→ 400 for a body that is not Alertmanager’s, or too many alerts, changing nothing', async () => {
    const account = await t.newAccount({ channels: ['ops'] });
    expectError(await post(t.app, url(), account.secretKey, { text: 'hello' }), 'validation_failed');
    const bad = firing();
    bad.alerts[0].status = 'pending';
    expectError(await post(t.app, url(), account.secretKey, bad), 'validation_failed');
    const many = firing();
    many.alerts = Array.from({ length: 101 }, (_, n) => ({ ...many.alerts[0], fingerprint: n.toString(16) }));
    expectError(await post(t.app, url(), account.secretKey, many), 'validation_failed');
    expectError(await post(t.app, '/api/v1/relays/alertmanager', account.secretKey, firing()), 'validation_failed');
    expect(await activities(account)).toEqual([]);
  });

  it('→ 401 without a key, 403 for a key scoped to other channels, 404 for an unknown channel', async () => {
    const account = await t.newAccount({ channels: ['ops', 'builds'] });
    expectError(await post(t.app, url(), null, firing()), 'unauthorized');
    expectError(await post(t.app, url(), account.publishableKey, firing()), 'forbidden');
    const scoped = (await account.key({ channels: ['builds'] })).value;
    expectError(await post(t.app, url(), scoped, firing()), 'channel_not_allowed');
    expectError(await post(t.app, url('nope'), account.secretKey, firing()), 'channel_not_found');
    // A key scoped to the channel is all Alertmanager needs.
    const opsOnly = (await account.key({ channels: ['ops'] })).value;
    expectSuccess(await post(t.app, url(), opsOnly, firing()), 200);
  });

  it('→ 429 when the quota runs out; the retry redoes only what was not done', async () => {
    const account = await t.newAccount({ channels: ['ops'], plan: 'free', limit: 1 });
    expectError(await post(t.app, url(), account.secretKey, firing()), 'quota_exceeded');
    expect(await activities(account)).toHaveLength(1);
    await setAccountPlan(t.store.db, account.id, 'free', 10);
    const retried = expectSuccess(await post(t.app, url(), account.secretKey, firing()), 200).results;
    expect(retried.map((result: any) => result.event)).toEqual(['unchanged', 'started']);
    expect(await activities(account)).toHaveLength(2);
  });
});
