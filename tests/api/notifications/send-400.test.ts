import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts, accountState } from '../../harness/account-state.ts';
import { expectError, expectValidation } from '../../harness/api-expect.ts';
import { rawRequest } from '../../harness/api-routes.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const yearAhead = () => new Date(t.clock.now() + 366 * 86_400_000).toISOString();
const fiftyOne = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));

describe('POST /api/v1/notifications → 400 validation_failed', () => {
  it.each<[string, () => Record<string, unknown>, string[]]>([
    ['no channelCode', () => ({ title: 'Hi' }), ['channelCode']],
    ['a channelCode that is not a string', () => ({ channelCode: 42, title: 'Hi' }), ['channelCode']],
    ['a channelCode of the wrong shape', () => ({ channelCode: 'News!', title: 'Hi' }), ['channelCode']],
    ['neither title nor body', () => ({ channelCode: 'news' }), ['title']],
    ['an empty title', () => ({ channelCode: 'news', title: '' }), ['title']],
    ['a title of 257 characters', () => ({ channelCode: 'news', title: 'x'.repeat(257) }), ['title']],
    ['a body of 4,001 characters', () => ({ channelCode: 'news', body: 'x'.repeat(4001) }), ['body']],
    ['a relative url', () => ({ channelCode: 'news', title: 'Hi', url: '/orders/42' }), ['url']],
    ['a javascript: url', () => ({ channelCode: 'news', title: 'Hi', url: 'javascript:alert(1)' }), ['url']],
    ['an ftp url', () => ({ channelCode: 'news', title: 'Hi', url: 'ftp://example.com/file' }), ['url']],
    [
      'an http imageUrl',
      () => ({ channelCode: 'news', title: 'Hi', imageUrl: 'http://example.com/a.png' }),
      ['imageUrl'],
    ],
    [
      'an http iconUrl',
      () => ({ channelCode: 'news', title: 'Hi', iconUrl: 'http://example.com/icon.png' }),
      ['iconUrl'],
    ],
    ['data that is not an object', () => ({ channelCode: 'news', title: 'Hi', data: ['a'] }), ['data']],
    [
      'an interruptionLevel iOS does not have',
      () => ({ channelCode: 'news', title: 'Hi', interruptionLevel: 'loud' }),
      ['interruptionLevel'],
    ],
    ['a relevanceScore over 1', () => ({ channelCode: 'news', title: 'Hi', relevanceScore: 1.5 }), ['relevanceScore']],
    ['an empty subtitle', () => ({ channelCode: 'news', title: 'Hi', subtitle: '' }), ['subtitle']],
    [
      'an androidChannelId of 101 characters',
      () => ({ channelCode: 'news', title: 'Hi', androidChannelId: 'c'.repeat(101) }),
      ['androidChannelId'],
    ],
    [
      'a silent push with a title and a sound',
      () => ({ channelCode: 'news', contentAvailable: true, title: 'Hi', sound: 'default' }),
      ['title', 'sound'],
    ],
    [
      'a silent push with a badge',
      () => ({ channelCode: 'news', contentAvailable: true, badge: 1, data: { a: 'b' } }),
      ['badge'],
    ],
    [
      'localizations keyed by something that is not a language tag',
      () => ({ channelCode: 'news', title: 'Hi', localizations: { 'german please': { title: 'Hallo' } } }),
      ['localizations.german please'],
    ],
    [
      'a localization without a title or body',
      () => ({ channelCode: 'news', title: 'Hi', localizations: { de: {} } }),
      ['localizations.de'],
    ],
    [
      'a localization with a field it does not take',
      () => ({ channelCode: 'news', title: 'Hi', localizations: { de: { title: 'Hallo', sound: 'x' } } }),
      ['localizations.de.sound'],
    ],
    [
      'a silent push with localizations',
      () => ({ channelCode: 'news', contentAvailable: true, localizations: { de: { title: 'Hallo' } } }),
      ['localizations'],
    ],
    [
      'four action buttons',
      () => ({
        channelCode: 'news',
        title: 'Hi',
        actions: ['a', 'b', 'c', 'd'].map((id) => ({ id, title: id.toUpperCase() })),
      }),
      ['actions'],
    ],
    ['an empty list of actions', () => ({ channelCode: 'news', title: 'Hi', actions: [] }), ['actions']],
    [
      'an action id with a space',
      () => ({ channelCode: 'news', title: 'Hi', actions: [{ id: 'say yes', title: 'Yes' }] }),
      ['actions.0.id'],
    ],
    [
      'an action without a title',
      () => ({ channelCode: 'news', title: 'Hi', actions: [{ id: 'yes' }] }),
      ['actions.0.title'],
    ],
    [
      'two actions with one id',
      () => ({
        channelCode: 'news',
        title: 'Hi',
        actions: [
          { id: 'yes', title: 'Yes' },
          { id: 'yes', title: 'Sure' },
        ],
      }),
      ['actions.1.id'],
    ],
    [
      'an action url that is not http(s)',
      () => ({ channelCode: 'news', title: 'Hi', actions: [{ id: 'open', title: 'Open', url: 'javascript:x()' }] }),
      ['actions.0.url'],
    ],
    [
      'an action with a field it does not take',
      () => ({ channelCode: 'news', title: 'Hi', actions: [{ id: 'open', title: 'Open', icon: 'x' }] }),
      ['actions.0.icon'],
    ],
    [
      'a silent push with actions',
      () => ({ channelCode: 'news', contentAvailable: true, actions: [{ id: 'open', title: 'Open' }] }),
      ['actions'],
    ],
    [
      'data with the key that carries the actions',
      () => ({ channelCode: 'news', title: 'Hi', data: { clarionActions: '[]' } }),
      ['data.clarionActions'],
    ],
    [
      'a throttlePerMinute of 0',
      () => ({ channelCode: 'news', title: 'Hi', throttlePerMinute: 0 }),
      ['throttlePerMinute'],
    ],
    [
      'a throttlePerMinute over 1,000,000',
      () => ({ channelCode: 'news', title: 'Hi', throttlePerMinute: 1_000_001 }),
      ['throttlePerMinute'],
    ],
    [
      'an ignoreQuietHours that is not a boolean',
      () => ({ channelCode: 'news', title: 'Hi', ignoreQuietHours: 1 }),
      ['ignoreQuietHours'],
    ],
    [
      'an ignoreFrequencyCap that is not a boolean',
      () => ({ channelCode: 'news', title: 'Hi', ignoreFrequencyCap: 'yes' }),
      ['ignoreFrequencyCap'],
    ],
    [
      'a contentAvailable that is not a boolean',
      () => ({ channelCode: 'news', contentAvailable: 1 }),
      ['contentAvailable'],
    ],
    ['data with a number value', () => ({ channelCode: 'news', title: 'Hi', data: { count: 3 } }), ['data.count']],
    [
      'data with a reserved key',
      () => ({ channelCode: 'news', title: 'Hi', data: { 'google.x': 'v' } }),
      ['data.google.x'],
    ],
    ['data with 51 entries', () => ({ channelCode: 'news', title: 'Hi', data: fiftyOne }), ['data']],
    [
      'a sendAt without offset',
      () => ({ channelCode: 'news', title: 'Hi', sendAt: '2030-05-01T09:00:00' }),
      ['sendAt'],
    ],
    ['a sendAt that is not a date', () => ({ channelCode: 'news', title: 'Hi', sendAt: 'tomorrow' }), ['sendAt']],
    [
      'a sendAt more than 365 days ahead',
      () => ({ channelCode: 'news', title: 'Hi', sendAt: yearAhead() }),
      ['sendAt'],
    ],
    ['a negative badge', () => ({ channelCode: 'news', title: 'Hi', badge: -1 }), ['badge']],
    ['a fractional badge', () => ({ channelCode: 'news', title: 'Hi', badge: 1.5 }), ['badge']],
    ['an unknown priority', () => ({ channelCode: 'news', title: 'Hi', priority: 'urgent' }), ['priority']],
    [
      'a ttlSeconds over 28 days',
      () => ({ channelCode: 'news', title: 'Hi', ttlSeconds: 28 * 86_400 + 1 }),
      ['ttlSeconds'],
    ],
    ['an unknown field', () => ({ channelCode: 'news', title: 'Hi', colour: 'red' }), ['colour']],
    ['the /notify field name', () => ({ channel: 'news', title: 'Hi' }), ['channel', 'channelCode']],
    ['a NUL character in the title', () => ({ channelCode: 'news', title: 'a\u0000b' }), ['title']],
  ])('refuses %s, naming the field, and stores nothing', async (_name, body, fields) => {
    const account = await t.newAccount({ channels: ['news'] });
    const before = await accountState(t, account.id);
    expectValidation(await post(t.app, '/api/v1/notifications', account.secretKey, body()), fields);
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('explains the rule in the message', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const [problem] = expectValidation(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news' }),
      ['title'],
    );
    expect(problem!.message).toBe('a notification needs a title, a body or both');
    const [url] = expectValidation(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi', url: 'nope' }),
      ['url'],
    );
    expect(url!.message).toMatch(/absolute http\(s\) URL/);
  });

  it('lists every wrong field at once', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectValidation(
      await post(t.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'news',
        title: '',
        badge: -1,
        priority: 'x',
      }),
      ['title', 'badge', 'priority'],
    );
  });

  it('refuses a malformed Idempotency-Key', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const response = await post(
      t.app,
      '/api/v1/notifications',
      account.secretKey,
      { channelCode: 'news', title: 'Hi' },
      { 'idempotency-key': 'has spaces' },
    );
    expectValidation(response, ['Idempotency-Key']);
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 0, quotaUsed: 0 });
  });
});

describe('POST /api/v1/notifications → 400 invalid_json', () => {
  it.each([
    ['truncated JSON', '{"channelCode": "news", "title": '],
    ['single quotes', "{'channelCode': 'news'}"],
    ['a trailing comma', '{"channelCode": "news", "title": "Hi",}'],
    ['an empty body', ''],
    ['white space only', '  \n '],
    ['a __proto__ key', '{"channelCode": "news", "title": "Hi", "__proto__": {"admin": true}}'],
  ])('answers invalid_json for %s and stores nothing', async (_name, payload) => {
    const account = await t.newAccount({ channels: ['news'] });
    const response = await rawRequest(t.app, 'POST', '/api/v1/notifications', account.secretKey, payload, {
      'content-type': 'application/json',
    });
    expectError(response, 'invalid_json');
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 0, quotaUsed: 0 });
  });

  it('answers invalid_json for a POST without any body', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectError(await post(t.app, '/api/v1/notifications', account.secretKey), 'invalid_json');
  });
});
