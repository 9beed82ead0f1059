import Type from 'typebox';
import { MAX_THROTTLE_PER_MINUTE } from '../../../domain/limits.ts';
import { Nullable } from '../../schemas.ts';

/** The credential parts of the create and update bodies (docs/apps.md); checked by src/delivery/app-credentials.ts. */
export const AppName = Type.String({ minLength: 1, maxLength: 100, description: 'Display name.' });

export const IosCredentials = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 10_000,
      description: 'Contents of the .p8 file (PEM, "-----BEGIN PRIVATE KEY-----").',
    }),
    keyId: Type.String({ maxLength: 10, description: 'The 10-character Key ID of the key.' }),
    teamId: Type.String({ maxLength: 10, description: 'The 10-character Apple Team ID.' }),
    bundleId: Type.String({ maxLength: 155, description: "The app's bundle id, sent as apns-topic." }),
  },
  { additionalProperties: false, title: 'AppIosCredentials' },
);

export const AndroidCredentials = Type.Object(
  {
    serviceAccount: Type.Union([Type.String({ maxLength: 20_000 }), Type.Object({}, { additionalProperties: true })], {
      description: 'The Firebase service-account key JSON (an object, or its text).',
      hint: 'must be the service-account JSON, as an object or as text',
    }),
  },
  { additionalProperties: false, title: 'AppAndroidCredentials' },
);

export const WebCredentials = Type.Object(
  {
    publicKey: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          "VAPID public key, base64url; with privateKey. Both omitted: a pair is generated for a new app, an existing app's pair stays. A new pair cuts off the browsers subscribed to the app's channels until they subscribe again (docs/apps.md).",
      }),
    ),
    privateKey: Type.Optional(Type.String({ maxLength: 200, description: 'VAPID private key, base64url (32 bytes).' })),
    subject: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 500,
          description:
            'mailto: or https: contact for the push services, without spaces or angle brackets and not on localhost (Apple refuses those); null: the instance default.',
        }),
      ),
    ),
  },
  { additionalProperties: false, title: 'AppWebCredentials' },
);

export const AppThrottle = Type.Union([Type.Integer({ minimum: 1, maximum: MAX_THROTTLE_PER_MINUTE }), Type.Null()], {
  description:
    'The throttlePerMinute of sends to the app\'s channels that give none (docs/api.md, "Throttling"); null: none.',
  hint: `must be null or a whole number from 1 to ${MAX_THROTTLE_PER_MINUTE}`,
});
