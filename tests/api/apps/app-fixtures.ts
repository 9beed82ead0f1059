import { sealAppCredentials } from '../../../src/delivery/app-credentials.ts';
import { newId } from '../../../src/domain/ids.ts';
import { insertApp } from '../../../src/store/apps-queries.ts';
import { createApnsSigningKey, createFcmServiceAccount } from '../../../tools/fakes/index.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';

/** Request bodies for the /api/v1/apps tests: real keys, generated the way Apple and Google issue them. */
export function iosCredentials(bundleId = 'com.example.app') {
  const key = createApnsSigningKey();
  return { key: key.privateKeyPem, keyId: key.keyId, teamId: key.teamId, bundleId };
}

export function androidCredentials(projectId = 'example-project') {
  return {
    serviceAccount: createFcmServiceAccount({ projectId, tokenUri: 'https://oauth2.googleapis.com/token' }).json,
  };
}

/** Creates an app with iOS and Android credentials through the API; returns its view. */
export async function createTestApp(t: TestApp, secretKey: string, name = 'Shop'): Promise<any> {
  const response = await post(t.app, '/api/v1/apps', secretKey, {
    name,
    ios: iosCredentials(),
    android: androidCredentials(),
  });
  if (response.statusCode !== 201)
    throw new Error(`creating an app answered ${response.statusCode}: ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/** No secret of an upload may appear in a response: not the PEM keys, not the VAPID private key. */
export function secretsIn(text: string): string[] {
  return ['PRIVATE KEY', 'private_key', 'privateKey', 'sealed'].filter((needle) => text.includes(needle));
}

export async function send(t: TestApp, method: 'PATCH' | 'DELETE', url: string, key: string | null, body?: unknown) {
  const response = await t.app.inject({
    method,
    url,
    headers: key ? { authorization: `Bearer ${key}` } : {},
    ...(body === undefined ? {} : { payload: body as object }),
  });
  let parsed: any = response.body;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    // not JSON
  }
  return Object.assign(response, { body: parsed });
}

/**
 * An app whose stored service account names `tokenUri`, written straight to the database as an older Clarion, which
 * took any token_uri on upload, may have stored it: the upload's check is skipped, the send and test paths must
 * still refuse it.
 */
export async function storeAppWithTokenUri(
  t: Pick<TestApp, 'store' | 'secretKey' | 'clock'>,
  accountId: string,
  serviceAccount: object,
  tokenUri: string,
): Promise<string> {
  const id = newId('app', t.clock.now());
  const sealed = sealAppCredentials(
    t.secretKey,
    id,
    { android: { serviceAccount: { ...serviceAccount, token_uri: tokenUri } } },
    true,
    'any',
  );
  if (!sealed.ok) throw new Error(JSON.stringify(sealed.problems));
  await insertApp(t.store.db, { id, accountId, name: 'Stored', sealed: sealed.columns, now: t.clock.now() });
  return id;
}
