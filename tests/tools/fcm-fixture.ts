import type { ClientHttp2Session } from 'node:http2';
import {
  type FakeFcm,
  type FakeFcmOptions,
  type FcmServiceAccount,
  createFcmServiceAccount,
  startFakeFcm,
} from '../../tools/fakes/index.ts';
import { type H2Response, closeAfterTest, h2Request, openSession, postForm } from './h2-test-client.ts';
import { fcmAssertion } from './jwt-signers.ts';

export const PROJECT = 'clarion-test';
export const REGISTRATION_TOKEN = 'dGVzdC1kZXZpY2U6APA91bFakeRegistrationToken_0123456789-abcdefghijklmnop';
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface FcmFixture {
  fcm: FakeFcm;
  account: FcmServiceAccount;
  session: ClientHttp2Session;
  /** Exchanges a fresh assertion for an access token over HTTP/1.1, as fetch() would. */
  accessToken(): Promise<string>;
  /** POST messages:send over HTTP/2 with a valid access token unless `accessToken` overrides it (null: none). */
  send(body: unknown, options?: { accessToken?: string | null; project?: string }): Promise<H2Response>;
}

/** RSA key generation takes ~100 ms, so one key serves every test in a file; each fake gets its own token_uri. */
let sharedAccount: FcmServiceAccount | undefined;

export async function fcmFixture(options: FakeFcmOptions = {}): Promise<FcmFixture> {
  const fcm = await startFakeFcm(options);
  closeAfterTest(() => fcm.close());
  sharedAccount ??= createFcmServiceAccount({ projectId: PROJECT, tokenUri: 'https://placeholder.invalid/token' });
  const account = { json: { ...sharedAccount.json, token_uri: fcm.tokenUri }, publicKey: sharedAccount.publicKey };
  fcm.addServiceAccount(account);
  const session = await openSession(fcm.url);
  const nowSeconds = () => Math.floor((options.clock?.now() ?? Date.now()) / 1000);
  const accessToken = async () => {
    const response = await postForm(fcm.tokenUri, {
      grant_type: JWT_BEARER,
      assertion: await fcmAssertion(account, { iat: nowSeconds() }),
    });
    if (response.status !== 200) throw new Error(`token endpoint answered ${response.status}: ${response.body}`);
    return (JSON.parse(response.body) as { access_token: string }).access_token;
  };
  let cached: string | null = null;
  const send = async (body: unknown, sendOptions: { accessToken?: string | null; project?: string } = {}) => {
    const token = sendOptions.accessToken === undefined ? (cached ??= await accessToken()) : sendOptions.accessToken;
    return h2Request(
      session,
      {
        ':path': `/v1/projects/${sendOptions.project ?? PROJECT}/messages:send`,
        'content-type': 'application/json',
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      },
      JSON.stringify(body),
    );
  };
  return { fcm, account, session, accessToken, send };
}

export function tokenMessage(extra: Record<string, unknown> = {}): { message: Record<string, unknown> } {
  return { message: { token: REGISTRATION_TOKEN, notification: { title: 'Hello', body: 'World' }, ...extra } };
}
