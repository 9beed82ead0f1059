import { createApnsSigningKey, createFcmServiceAccount } from '../../../tools/fakes/index.ts';
import { post } from '../../harness/requests.ts';
import type { TestApp } from '../../harness/test-app.ts';

/** Request bodies for the /api/v1/apps tests: real keys, generated the way Apple and Google issue them. */
export function iosCredentials(bundleId = 'com.example.app') {
  const key = createApnsSigningKey();
  return { key: key.privateKeyPem, keyId: key.keyId, teamId: key.teamId, bundleId };
}

export function androidCredentials(projectId = 'example-project') {
  return { serviceAccount: createFcmServiceAccount({ projectId, tokenUri: 'https://oauth2.googleapis.com/token' }).json };
}

/** Creates an app with iOS and Android credentials through the API; returns its view. */
export async function createTestApp(t: TestApp, secretKey: string, name = 'Shop'): Promise<any> {
  const response = await post(t.app, '/api/v1/apps', secretKey, { name, ios: iosCredentials(), android: androidCredentials() });
  if (response.statusCode !== 201) throw new Error(`creating an app answered ${response.statusCode}: ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/** No secret of an upload may appear in a response: not the PEM keys, not the VAPID private key. */
export function secretsIn(text: string): string[] {
  return ['PRIVATE KEY', 'private_key', 'privateKey', 'sealed'].filter((needle) => text.includes(needle));
}

export async function send(t: TestApp, method: 'PATCH' | 'DELETE', url: string, key: string | null, body?: unknown) {
  const response = await t.app.inject({ method, url, headers: key ? { authorization: `Bearer ${key}` } : {}, ...(body === undefined ? {} : { payload: body as object }) });
  let parsed: any = response.body;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    // not JSON
  }
  return Object.assign(response, { body: parsed });
}
