import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectValidation } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { generateKeyPairSync } from 'node:crypto';
import { androidCredentials, iosCredentials } from './app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const rsaPem = generateKeyPairSync('rsa', { modulusLength: 1024 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

describe('POST /api/v1/apps → 400 validation_failed', () => {
  it.each<[string, () => Record<string, unknown>, string[]]>([
    ['no name', () => ({ ios: iosCredentials() }), ['name']],
    ['a blank name', () => ({ name: '   ' }), ['name']],
    ['a .p8 that is not a PEM key', () => ({ name: 'A', ios: { ...iosCredentials(), key: 'not a key' } }), ['ios.key']],
    [
      'an RSA key instead of a P-256 key',
      () => ({ name: 'A', ios: { ...iosCredentials(), key: rsaPem } }),
      ['ios.key'],
    ],
    ['a Key ID of the wrong shape', () => ({ name: 'A', ios: { ...iosCredentials(), keyId: 'abc' } }), ['ios.keyId']],
    [
      'a Team ID of the wrong shape',
      () => ({ name: 'A', ios: { ...iosCredentials(), teamId: 'team' } }),
      ['ios.teamId'],
    ],
    [
      'a bundle id that is not reverse-DNS',
      () => ({ name: 'A', ios: { ...iosCredentials(), bundleId: 'shop' } }),
      ['ios.bundleId'],
    ],
    [
      'iOS credentials without the key',
      () => ({ name: 'A', ios: { keyId: 'ABCDEFGHIJ', teamId: 'ABCDEFGHIJ', bundleId: 'com.a.b' } }),
      ['ios.key'],
    ],
    [
      'a service account that is not JSON',
      () => ({ name: 'A', android: { serviceAccount: '{nope' } }),
      ['android.serviceAccount'],
    ],
    [
      'a service account without private_key',
      () => ({
        name: 'A',
        android: { serviceAccount: { ...androidCredentials().serviceAccount, private_key: undefined } },
      }),
      ['android.serviceAccount'],
    ],
    ['a VAPID public key without its private key', () => ({ name: 'A', web: { publicKey: 'BAAA' } }), ['web']],
    [
      'a VAPID private key of the wrong size',
      () => ({ name: 'A', web: { publicKey: 'BAAA', privateKey: 'AAAA' } }),
      ['web.privateKey'],
    ],
    [
      'a VAPID subject that is not mailto: or https:',
      () => ({ name: 'A', web: { subject: 'http://example.com' } }),
      ['web.subject'],
    ],
    [
      'a VAPID subject with a space and angle brackets (Apple refuses it)',
      () => ({ name: 'A', web: { subject: 'mailto: <admin@example.com>' } }),
      ['web.subject'],
    ],
    [
      'a VAPID subject on localhost (Apple refuses it)',
      () => ({ name: 'A', web: { subject: 'mailto:webpush@localhost' } }),
      ['web.subject'],
    ],
    ['an unknown field', () => ({ name: 'A', apnsKey: 'x' }), ['apnsKey']],
  ])('refuses %s, naming the field, and stores nothing', async (_name, body, fields) => {
    const account = await t.newAccount();
    const before = await accountState(t, account.id);
    expectValidation(await post(t.app, '/api/v1/apps', account.secretKey, body()), fields);
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
