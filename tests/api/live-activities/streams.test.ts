import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../../src/store/api-keys-queries.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { progressActivity } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

/**
 * POST /api/v1/live-activities/streams/{key} and …/{key}/end (docs/live-activities.md, "Streams"): a caller drives an
 * activity with its own key, never its id. Every status each answers.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const stream = (key: string) => `/api/v1/live-activities/streams/${key}`;
const build = (progress: number) => ({ ...progressActivity('builds'), fields: { title: 'Build 1234', progress } });

describe('POST /api/v1/live-activities/streams/{key}', () => {
  it('→ 201 started the first time, then 200 updated with the same id and the fields merged', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    const started = expectSuccess(await post(t.app, stream('ci-1234'), account.secretKey, build(0.1)), 201);
    expect(started).toMatchObject({
      event: 'started',
      status: 'active',
      fields: { title: 'Build 1234', progress: 0.1 },
    });
    t.clock.advance(1_000);
    const updated = expectSuccess(
      await post(t.app, stream('ci-1234'), account.secretKey, { ...build(0.6), fields: { progress: 0.6 } }),
      200,
    );
    expect(updated).toMatchObject({
      id: started.id,
      event: 'updated',
      fields: { title: 'Build 1234', progress: 0.6 },
      lastEvent: { event: 'update' },
    });
    expect(
      expectSuccess(await get(t.app, `/api/v1/live-activities/${started.id}`, account.secretKey), 200),
    ).toMatchObject({ id: started.id, streamKey: 'ci-1234' });
  });

  it('keeps keys apart per channel and per account', async () => {
    const account = await t.newAccount({ channels: ['builds', 'deploys'] });
    const other = await t.newAccount({ channels: ['builds'] });
    const ids = [
      expectSuccess(await post(t.app, stream('same'), account.secretKey, build(0.1)), 201).id,
      expectSuccess(
        await post(t.app, stream('same'), account.secretKey, { ...build(0.1), channelCode: 'deploys' }),
        201,
      ).id,
      expectSuccess(await post(t.app, stream('same'), other.secretKey, build(0.1)), 201).id,
    ];
    expect(new Set(ids).size).toBe(3);
  });

  it('makes exactly one activity of concurrent first calls with one key', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, n) => post(t.app, stream('race'), account.secretKey, build(n / 10))),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((answer) => answer.body.data.id)).size).toBe(1);
    const rows = await t.store.db
      .selectFrom('live_activities')
      .select('id')
      .where('account_id', '=', account.id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('starts a new activity once the last one ended, by a call or after its 8 hours', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    const first = expectSuccess(await post(t.app, stream('nightly'), account.secretKey, build(0.1)), 201).id;
    expectSuccess(await post(t.app, `${stream('nightly')}/end`, account.secretKey, { channelCode: 'builds' }), 200);
    const second = expectSuccess(await post(t.app, stream('nightly'), account.secretKey, build(0.2)), 201);
    expect(second.id).not.toBe(first);

    // Past its 8 hours the activity is over even before the expiry job recorded it: the stream starts anew.
    t.clock.advance(8 * 3600 * 1000);
    const third = expectSuccess(await post(t.app, stream('nightly'), account.secretKey, build(0.3)), 201);
    expect(third.id).not.toBe(second.id);
    const ended = await t.store.db
      .selectFrom('live_activities')
      .select(['status', 'ended_at'])
      .where('id', '=', second.id)
      .executeTakeFirstOrThrow();
    expect(ended.status).toBe('ended');
  });

  it.each([
    ['a key with a slash-free but unsafe character', 'ci%201234', build(0.1), 'key'],
    ['incomplete fields on the first call', 'fresh', { ...build(0.1), fields: { progress: 0.1 } }, 'fields.title'],
    ['an unknown member', 'fresh', { ...build(0.1), colour: 'red' }, 'colour'],
  ])('→ 400 validation_failed for %s', async (_name, key, body, field) => {
    const account = await t.newAccount({ channels: ['builds'] });
    const error = expectError(await post(t.app, stream(key), account.secretKey, body), 'validation_failed');
    expect(error.details.fields.map((problem: { field: string }) => problem.field)).toContain(field);
  });

  it('takes a key of 128 characters and refuses one of 129', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    expectSuccess(await post(t.app, stream('k'.repeat(128)), account.secretKey, build(0.1)), 201);
    expectError(await post(t.app, stream('k'.repeat(129)), account.secretKey, build(0.1)), 'bad_request');
  });

  it('→ 400 for another template while the stream’s activity is active, and changes nothing', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    const started = expectSuccess(await post(t.app, stream('ci-9'), account.secretKey, build(0.1)), 201);
    const error = expectError(
      await post(t.app, stream('ci-9'), account.secretKey, {
        channelCode: 'builds',
        template: 'steps',
        fields: { title: 'Build', currentStep: 1, totalSteps: 3 },
      }),
      'validation_failed',
    );
    expect(error.details.fields).toEqual([{ field: 'template', message: expect.stringContaining('must be progress') }]);
    expect(
      expectSuccess(await get(t.app, `/api/v1/live-activities/${started.id}`, account.secretKey), 200).fields,
    ).toEqual(started.fields);
  });

  it('→ 403 channel_not_allowed for a key scoped to other channels, even while the stream runs', async () => {
    const account = await t.newAccount({ channels: ['builds', 'deploys'] });
    expectSuccess(await post(t.app, stream('ci-3'), account.secretKey, build(0.1)), 201);
    const scoped = await account.key({ channels: ['deploys'] });
    expectError(await post(t.app, stream('ci-3'), scoped.value, build(0.2)), 'channel_not_allowed');
    expectError(
      await post(t.app, `${stream('ci-3')}/end`, scoped.value, { channelCode: 'builds' }),
      'channel_not_allowed',
    );
  });

  it('refuses a revoked key at once, though it streamed a moment before', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    const key = await account.key({});
    expectSuccess(await post(t.app, stream('ci-4'), key.value, build(0.1)), 201);
    await revokeApiKey(t.store.db, key.id, t.clock.now());
    expectError(await post(t.app, stream('ci-4'), key.value, build(0.2)), 'unauthorized');
    expectError(await post(t.app, `${stream('ci-4')}/end`, key.value, { channelCode: 'builds' }), 'unauthorized');
  });

  it('→ 401 without a key, 403 with a publishable key, 404 for an unknown channel', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    expectError(await post(t.app, stream('k'), null, build(0.1)), 'unauthorized');
    expectError(await post(t.app, stream('k'), account.publishableKey, build(0.1)), 'forbidden');
    expectError(
      await post(t.app, stream('k'), account.secretKey, { ...build(0.1), channelCode: 'nope' }),
      'channel_not_found',
    );
  });
});

describe('POST /api/v1/live-activities/streams/{key}/end', () => {
  it('→ 200 ends the stream’s activity with its final fields', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    const started = expectSuccess(await post(t.app, stream('ci-77'), account.secretKey, build(0.5)), 201);
    const ended = expectSuccess(
      await post(t.app, `${stream('ci-77')}/end`, account.secretKey, {
        channelCode: 'builds',
        fields: { progress: 1, status: 'Passed' },
      }),
      200,
    );
    expect(ended).toMatchObject({
      id: started.id,
      event: 'ended',
      status: 'ended',
      fields: { progress: 1, status: 'Passed' },
    });
  });

  it('→ 404 when no activity of the stream is active in that channel', async () => {
    const account = await t.newAccount({ channels: ['builds', 'deploys'] });
    expectSuccess(await post(t.app, stream('ci-5'), account.secretKey, build(0.5)), 201);
    for (const body of [{ channelCode: 'deploys' }, { channelCode: 'builds', fields: {} }]) {
      const key = body.fields ? 'ci-6' : 'ci-5';
      expect(expectError(await post(t.app, `${stream(key)}/end`, account.secretKey, body), 'not_found').message).toBe(
        'No active Live Activity with that stream key in that channel.',
      );
    }
  });

  it('→ 400 without channelCode, 401 without a key, 403 with a publishable key', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    expectError(await post(t.app, `${stream('x')}/end`, account.secretKey, {}), 'validation_failed');
    expectError(await post(t.app, `${stream('x')}/end`, null, { channelCode: 'builds' }), 'unauthorized');
    expectError(
      await post(t.app, `${stream('x')}/end`, account.publishableKey, { channelCode: 'builds' }),
      'forbidden',
    );
  });
});
