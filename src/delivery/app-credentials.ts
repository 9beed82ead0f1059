import { openSecret, sealSecret } from '../domain/secret-box.ts';
import type { FieldProblem } from '../domain/schema-errors.ts';
import type { App, AppCredentialColumns } from '../store/apps-queries.ts';
import { tokenUriRefusal, type TokenUriPolicy } from './fcm/fcm-token-uri.ts';
import { parseApnsSigningKey, parseFcmServiceAccount, ProviderCredentialsError } from './provider-credentials.ts';
import { generateVapidKeyPair, vapidPublicKeyOf } from './web-push/vapid-keys.ts';
import { vapidSubjectProblem } from './web-push/vapid-subject.ts';

/**
 * An app's credentials as uploaded (API body, CLI files) → the columns stored: validated with the same parsers the
 * provider clients use (provider-credentials.ts: the .p8 is a P-256 key, the service account has what FCM's OAuth
 * needs, and its token_uri is one the policy allows: fcm/fcm-token-uri.ts), secrets sealed with the instance key and bound to the app and platform (secret-box.ts), fingerprints kept in
 * clear for the API. And the reverse for the delivery worker: the stored row → what a provider client needs.
 */
export interface IosCredentialsInput {
  /** The .p8 file's contents (PEM). */
  key: string;
  keyId: string;
  teamId: string;
  bundleId: string;
}

export interface AndroidCredentialsInput {
  /** The service-account JSON, as an object or as its text. */
  serviceAccount: unknown;
}

export interface WebCredentialsInput {
  /** Both or neither; neither: a pair is generated. */
  publicKey?: string;
  privateKey?: string;
  /** mailto: or https: contact for the push services; null: the instance's (CLARION_VAPID_SUBJECT or the base URL). */
  subject?: string | null;
}

export interface AppCredentialsInput {
  /** null removes the platform's credentials (update only); undefined leaves them as they are. */
  ios?: IosCredentialsInput | null;
  android?: AndroidCredentialsInput | null;
  /** On create, a pair left out is generated; on update, it stays. */
  web?: WebCredentialsInput;
}

/** Apple's Key ID and Team ID are 10 upper-case letters and digits. */
const APPLE_ID = /^[A-Z0-9]{10}$/;
/** A bundle id: reverse-DNS, letters, digits, '-' and '.' (Apple: CFBundleIdentifier). */
const BUNDLE_ID = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

const context = (appId: string, part: 'apns' | 'fcm' | 'vapid') => `${appId}:${part}`;

/**
 * The columns to store for `input`, or the problems that refuse it (field names as the API body has them).
 * `tokenUri`: where an uploaded service account's token request may go (uploadedTokenUriPolicy of the config).
 */
export function sealAppCredentials(
  secretKey: Buffer,
  appId: string,
  input: AppCredentialsInput,
  creating: boolean,
  tokenUri: TokenUriPolicy,
): { ok: true; columns: AppCredentialColumns } | { ok: false; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const columns: AppCredentialColumns = {};
  if (input.ios === null)
    Object.assign(columns, { apns_key_id: null, apns_team_id: null, apns_topic: null, apns_sealed_key: null });
  else if (input.ios !== undefined) {
    const ios = input.ios;
    try {
      parseApnsSigningKey(ios.key, 'ios.key');
    } catch (error) {
      problems.push({ field: 'ios.key', message: messageOf(error, 'ios.key') });
    }
    if (!APPLE_ID.test(ios.keyId))
      problems.push({ field: 'ios.keyId', message: 'must be the 10-character Key ID of the .p8 key, e.g. ABC123DEFG' });
    if (!APPLE_ID.test(ios.teamId))
      problems.push({ field: 'ios.teamId', message: 'must be the 10-character Apple Team ID, e.g. DEF123GHIJ' });
    if (!BUNDLE_ID.test(ios.bundleId) || ios.bundleId.length > 155)
      problems.push({ field: 'ios.bundleId', message: "must be the app's bundle id, e.g. com.example.app" });
    Object.assign(columns, {
      apns_key_id: ios.keyId,
      apns_team_id: ios.teamId,
      apns_topic: ios.bundleId,
      apns_sealed_key: sealSecret(secretKey, ios.key, context(appId, 'apns')),
    });
  }
  if (input.android === null)
    Object.assign(columns, { fcm_project_id: null, fcm_client_email: null, fcm_sealed_service_account: null });
  else if (input.android !== undefined) {
    let json: unknown = input.android.serviceAccount;
    if (typeof json === 'string') {
      try {
        json = JSON.parse(json);
      } catch {
        json = null;
        problems.push({
          field: 'android.serviceAccount',
          message: 'is not valid JSON: upload the service-account key file from the Firebase console',
        });
      }
    }
    if (json !== null) {
      try {
        const account = parseFcmServiceAccount(json, 'android.serviceAccount');
        const refusal = tokenUriRefusal(account.tokenUri, tokenUri);
        if (refusal !== null) throw new ProviderCredentialsError(`android.serviceAccount: ${refusal}`);
        Object.assign(columns, {
          fcm_project_id: account.projectId,
          fcm_client_email: account.clientEmail,
          fcm_sealed_service_account: sealSecret(secretKey, JSON.stringify(json), context(appId, 'fcm')),
        });
      } catch (error) {
        problems.push({ field: 'android.serviceAccount', message: messageOf(error, 'android.serviceAccount') });
      }
    }
  }
  const web = input.web ?? (creating ? {} : undefined);
  if (web !== undefined) {
    let pair: { publicKey: string; privateKey: string } | null = null;
    // A new app without a pair gets one. An update keeps its pair unless given another: a new pair cuts off every
    // browser subscribed to the app's channels (docs/apps.md, "An app's Web Push key"), never a side effect.
    if (web.publicKey === undefined && web.privateKey === undefined) pair = creating ? generateVapidKeyPair() : null;
    else if (web.publicKey === undefined || web.privateKey === undefined)
      problems.push({
        field: 'web',
        message: creating
          ? 'give both publicKey and privateKey, or neither to generate a pair'
          : 'give both publicKey and privateKey, or neither to keep the pair',
      });
    else {
      const derived = vapidPublicKeyOf(web.privateKey);
      if (derived === null)
        problems.push({ field: 'web.privateKey', message: 'must be a P-256 private key: 32 bytes, base64url' });
      else if (derived !== web.publicKey.replace(/=+$/, ''))
        problems.push({ field: 'web.publicKey', message: 'does not belong to web.privateKey' });
      else pair = { publicKey: derived, privateKey: Buffer.from(web.privateKey, 'base64url').toString('base64url') };
    }
    const subjectProblem = web.subject === undefined || web.subject === null ? null : vapidSubjectProblem(web.subject);
    if (subjectProblem !== null) problems.push({ field: 'web.subject', message: subjectProblem });
    if (pair)
      Object.assign(columns, {
        vapid_public_key: pair.publicKey,
        vapid_sealed_private_key: sealSecret(secretKey, pair.privateKey, context(appId, 'vapid')),
      });
    if (web.subject !== undefined) columns.vapid_subject = web.subject;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, columns };
}

/** What the provider clients need of an app, its secrets opened. Throws SecretBoxError when the instance key changed. */
export interface OpenedAppCredentials {
  apns: { keyPem: string; keyId: string; teamId: string; topic: string } | null;
  fcm: { serviceAccount: unknown } | null;
  vapid: { publicKey: string; privateKey: string; subject: string | null };
}

export function openAppCredentials(secretKey: Buffer, app: App): OpenedAppCredentials {
  const apns =
    app.apns_sealed_key && app.apns_key_id && app.apns_team_id && app.apns_topic
      ? {
          keyPem: openSecret(secretKey, app.apns_sealed_key, context(app.id, 'apns')),
          keyId: app.apns_key_id,
          teamId: app.apns_team_id,
          topic: app.apns_topic,
        }
      : null;
  const fcm = app.fcm_sealed_service_account
    ? {
        serviceAccount: JSON.parse(
          openSecret(secretKey, app.fcm_sealed_service_account, context(app.id, 'fcm')),
        ) as unknown,
      }
    : null;
  const vapid = {
    publicKey: app.vapid_public_key,
    privateKey: openSecret(secretKey, app.vapid_sealed_private_key, context(app.id, 'vapid')),
    subject: app.vapid_subject,
  };
  return { apns, fcm, vapid };
}

function messageOf(error: unknown, source: string): string {
  const message = error instanceof ProviderCredentialsError ? error.message : String(error);
  // The parsers prefix the source ("ios.key: ..."); the field already names it.
  return message.startsWith(`${source}: `) ? message.slice(source.length + 2) : message;
}
