import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectValidation } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const web = (change: (subscription: ReturnType<typeof tokens.web>) => unknown) => ({
  channelCode: 'news',
  platform: 'web',
  token: change(tokens.web()),
});

describe('POST /api/v1/subscribers → 400 validation_failed', () => {
  it.each<[string, () => Record<string, unknown>, string[]]>([
    ['no channelCode', () => ({ platform: 'android', token: tokens.android() }), ['channelCode']],
    [
      'a channelCode of the wrong shape',
      () => ({ channelCode: '-news', platform: 'android', token: tokens.android() }),
      ['channelCode'],
    ],
    [
      'an unknown platform',
      () => ({ channelCode: 'news', platform: 'windows', token: tokens.android() }),
      ['platform'],
    ],
    ['no token', () => ({ channelCode: 'news', platform: 'android' }), ['token']],
    [
      'an iOS token that is not hex',
      () => ({ channelCode: 'news', platform: 'ios', token: 'z'.repeat(64) }),
      ['token'],
    ],
    [
      'an iOS token that is too short',
      () => ({ channelCode: 'news', platform: 'ios', token: 'ab'.repeat(10) }),
      ['token'],
    ],
    [
      'an iOS token given as an object',
      () => ({ channelCode: 'news', platform: 'ios', token: tokens.web() }),
      ['token'],
    ],
    [
      'an Android token with spaces',
      () => ({ channelCode: 'news', platform: 'android', token: 'has spaces' }),
      ['token'],
    ],
    ['an empty Android token', () => ({ channelCode: 'news', platform: 'android', token: '' }), ['token']],
    [
      'a web token given as a string',
      () => ({ channelCode: 'news', platform: 'web', token: 'https://push.example.net/x' }),
      ['token'],
    ],
    [
      'a web endpoint over http',
      () => web((s) => ({ ...s, endpoint: 'http://push.example.net/x' })),
      ['token.endpoint'],
    ],
    [
      'a web p256dh of the wrong length',
      () => web((s) => ({ ...s, keys: { ...s.keys, p256dh: 'AAAA' } })),
      ['token.keys.p256dh'],
    ],
    [
      'a web auth of the wrong length',
      () => web((s) => ({ ...s, keys: { ...s.keys, auth: 'AAAA' } })),
      ['token.keys.auth'],
    ],
    ['a web subscription without keys', () => web((s) => ({ endpoint: s.endpoint })), ['token']],
    [
      'a pushToStartToken on Android',
      () => ({ channelCode: 'news', platform: 'android', token: tokens.android(), pushToStartToken: tokens.ios() }),
      ['pushToStartToken'],
    ],
    [
      'a pushToStartToken that is not hex',
      () => ({ channelCode: 'news', platform: 'ios', token: tokens.ios(), pushToStartToken: 'nope' }),
      ['pushToStartToken'],
    ],
    [
      'a template without a pushToStartToken',
      () => ({ channelCode: 'news', platform: 'ios', token: tokens.ios(), template: 'timer' }),
      ['template'],
    ],
    [
      'an unknown template',
      () => ({
        channelCode: 'news',
        platform: 'ios',
        token: tokens.ios(),
        pushToStartToken: tokens.ios(),
        template: 'clock',
      }),
      ['template'],
    ],
    [
      'an osVersion on Android',
      () => ({ channelCode: 'news', platform: 'android', token: tokens.android(), osVersion: '18.2' }),
      ['osVersion'],
    ],
    [
      'an osVersion that is not a version',
      () => ({ channelCode: 'news', platform: 'ios', token: tokens.ios(), osVersion: 'eighteen' }),
      ['osVersion'],
    ],
    [
      'an unknown timezone',
      () => ({ channelCode: 'news', platform: 'android', token: tokens.android(), timezone: 'Mars/Olympus' }),
      ['timezone'],
    ],
    [
      'a time zone abbreviation',
      () => ({ channelCode: 'news', platform: 'android', token: tokens.android(), timezone: 'PST' }),
      ['timezone'],
    ],
    [
      'a UTC offset for a time zone',
      () => ({ channelCode: 'news', platform: 'android', token: tokens.android(), timezone: '+05:00' }),
      ['timezone'],
    ],
    [
      'a malformed locale',
      () => ({ channelCode: 'news', platform: 'android', token: tokens.android(), locale: 'not a locale' }),
      ['locale'],
    ],
    [
      'an empty externalId',
      () => ({ channelCode: 'news', platform: 'android', token: tokens.android(), externalId: '' }),
      ['externalId'],
    ],
    [
      'an APNs environment on Android',
      () => ({ channelCode: 'news', platform: 'android', token: tokens.android(), environment: 'sandbox' }),
      ['environment'],
    ],
    [
      'an unknown APNs environment',
      () => ({ channelCode: 'news', platform: 'ios', token: tokens.ios(), environment: 'development' }),
      ['environment'],
    ],
    [
      'an unknown field',
      () => ({ channelCode: 'news', platform: 'android', token: tokens.android(), userId: 'x' }),
      ['userId'],
    ],
  ])('refuses %s, naming the field, and stores nothing', async (_name, body, fields) => {
    const account = await t.newAccount({ channels: ['news'] });
    const before = await accountState(t, account.id);
    expectValidation(await post(t.app, '/api/v1/subscribers', account.publishableKey, body()), fields);
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('says what a time zone must be', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const refused = await post(t.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'news',
      platform: 'android',
      token: tokens.android(),
      timezone: 'CET',
    });
    expect(refused.body.error.details.fields).toEqual([
      {
        field: 'timezone',
        message:
          'must be an IANA time zone name like America/Los_Angeles, Europe/Berlin or UTC; abbreviations like PST or CET are not accepted',
      },
    ]);
  });

  it('names every wrong field at once', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const body = { channelCode: 'news', platform: 'ios', token: 'xyz', timezone: 'Nowhere/City', locale: '??' };
    expectValidation(await post(t.app, '/api/v1/subscribers', account.publishableKey, body), [
      'token',
      'timezone',
      'locale',
    ]);
  });
});
