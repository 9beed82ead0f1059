import Type, { type Static } from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import type { App } from '../../../store/apps-queries.ts';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../schemas.ts';

/**
 * What the API shows of an app: names and fingerprints only (key id, team id, bundle id, project id, service-account
 * e-mail, VAPID public key). A private key is never in any response after its upload.
 */
export const AppSchema = Type.Object(
  {
    id: Type.String({ description: 'app_… identifier.' }),
    name: Type.String(),
    ios: Nullable(
      Type.Object(
        {
          keyId: Type.String({ description: 'Key ID of the .p8 key (JWT kid).' }),
          teamId: Type.String({ description: 'Apple Team ID (JWT iss).' }),
          bundleId: Type.String({ description: 'Sent as apns-topic.' }),
        },
        { title: 'AppIosFingerprint' },
      ),
    ),
    android: Nullable(
      Type.Object(
        {
          projectId: Type.String({ description: 'Firebase project id.' }),
          clientEmail: Type.String({ description: 'The service account.' }),
        },
        { title: 'AppAndroidFingerprint' },
      ),
    ),
    web: Type.Object(
      {
        vapidPublicKey: Type.String({
          description: 'base64url P-256 public key browsers subscribe with (applicationServerKey).',
        }),
        subject: Nullable(Type.String()),
      },
      { title: 'AppWebFingerprint' },
    ),
    credentials: Type.Object(
      {
        status: StringEnum(['ok', 'failing'] as const, {
          description: 'failing: a provider refused these credentials; replacing them sets ok again.',
        }),
        error: Nullable(Type.String({ description: 'What the provider said, e.g. apns:InvalidProviderToken.' })),
        failedAt: NullableTimestamp,
      },
      { title: 'AppCredentialsStatus' },
    ),
    throttlePerMinute: Nullable(
      Type.Integer({
        description: 'The throttle of sends to the app\'s channels that give none (docs/api.md, "Throttling").',
      }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'App' },
);

export function appView(app: App): Static<typeof AppSchema> {
  return {
    id: app.id,
    name: app.name,
    ios:
      app.apns_key_id && app.apns_team_id && app.apns_topic
        ? { keyId: app.apns_key_id, teamId: app.apns_team_id, bundleId: app.apns_topic }
        : null,
    android:
      app.fcm_project_id && app.fcm_client_email
        ? { projectId: app.fcm_project_id, clientEmail: app.fcm_client_email }
        : null,
    web: { vapidPublicKey: app.vapid_public_key, subject: app.vapid_subject },
    credentials: {
      status: app.credentials_status,
      error: app.credentials_error,
      failedAt: app.credentials_failed_at === null ? null : toIso(app.credentials_failed_at),
    },
    throttlePerMinute: app.throttle_per_minute,
    createdAt: toIso(app.created_at),
    updatedAt: toIso(app.updated_at),
  };
}
