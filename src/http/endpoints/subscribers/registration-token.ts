import Type from 'typebox';

/** PushSubscription.toJSON() from a browser: a web subscriber's token. */
const WebPushSubscription = Type.Object(
  {
    endpoint: Type.String({ description: 'https URL of the browser push service.' }),
    expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    keys: Type.Object({ p256dh: Type.String(), auth: Type.String() }),
  },
  { title: 'WebPushSubscription', description: 'PushSubscription.toJSON() from the browser.' },
);

/**
 * The token a device registers with (POST /subscribers `token`), and sends again as proof where a publishable key acts
 * on its own subscriber (subscriber-access.ts): a string for iOS and Android, the PushSubscription for the web.
 */
export function RegistrationToken(description: string) {
  return Type.Union([Type.String({ maxLength: 4096 }), WebPushSubscription], {
    description,
    hint: 'must be the device token string (iOS, Android) or the PushSubscription object (web)',
  });
}
