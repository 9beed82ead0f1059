/**
 * What a delivery failure's reason means and what fixes it, for the dashboard (the reasons are listed in
 * docs/delivery.md, "Outcomes", and docs/api.md). A reason is a Clarion code (`token_unregistered`) or a provider's
 * answer behind a prefix (`apns:BadDeviceToken`, `fcm:…`, `web-push:403:…`, `provider_configuration:…`): an exact code
 * is looked up first, then the longest prefix that matches.
 */
const exact = {
  token_unregistered: [
    'The device or browser no longer has this registration: the app was removed, notifications were turned off, or the token expired.',
    'Nothing to fix: the subscriber was unsubscribed. It gets pushes again once the app registers anew.',
  ],
  token_invalid: [
    'The provider does not know this token: it is malformed, or belongs to another app or environment.',
    'The subscriber was unsubscribed. Check that the app registers the token its platform gives it, as it is.',
  ],
  expired: [
    'The push could not be delivered before the notification’s ttlSeconds ran out (counted from its due time).',
    'Send with a longer ttlSeconds, or none, if it may arrive late.',
  ],
  retry_exhausted: [
    'The provider kept asking to try again later (busy, rate-limited or unreachable) through every retry round.',
    'Check the provider’s status; send again once it answers.',
  ],
  attempts_exhausted: [
    'The send job failed on every attempt inside Clarion (the worker’s log says why).',
    'See the worker’s log for the error behind it.',
  ],
  apns_not_configured: [
    'The channel’s app has no iOS (APNs) credentials, so no push to an iOS device can go out.',
    'Add the .p8 key, Key ID, Team ID and bundle id on the Apps page (or CLARION_APNS_* for the built-in app).',
  ],
  fcm_not_configured: [
    'The channel’s app has no Android (FCM) credentials, so no push to an Android device can go out.',
    'Upload the Firebase service-account file on the Apps page (or CLARION_FCM_SERVICE_ACCOUNT_FILE for the built-in app).',
  ],
  silent_not_supported: [
    'Skipped: a silent push (contentAvailable) wakes an app and shows nothing, and browsers show every push they get.',
    'Nothing to fix. Send browsers a notification with a title or body when they should hear of it.',
  ],
  frequency_capped: [
    'Skipped: the subscriber had already received as many of this channel’s notifications as its frequency cap allows in the period.',
    'Nothing to fix. Change the cap on the channel’s page, or send with ignoreFrequencyCap for a message that must arrive.',
  ],
  connection_lost: [
    'The connection to the provider broke while the push was on it, and the retries ran out.',
    'Check the network between Clarion and the provider.',
  ],
};

const prefixes = [
  [
    'provider_configuration:web-push:',
    'Every browser of one push service refused the VAPID signature: the keys changed, or the service refuses the subject.',
    'Check the app’s VAPID subject (Safari refuses localhost and addresses with spaces) and that browsers subscribed with the channel’s key.',
  ],
  [
    'provider_configuration:',
    'Every device of the batch gave the same answer, which means the configuration, not the devices: sandbox tokens sent to production, another bundle id or Firebase project.',
    'Check the app’s credentials (bundle id, environment, Firebase project) against the app that registered the tokens.',
  ],
  [
    'apns:',
    'Apple’s push service refused the push with this reason.',
    'Apple lists each reason with its fix: “Handling notification responses from APNs”.',
  ],
  [
    'fcm:',
    'Firebase Cloud Messaging refused the push with this reason.',
    'Firebase lists each error code with its fix: “FCM error codes”.',
  ],
  [
    'web-push:',
    'The browser’s push service refused the push with this status.',
    'A 4xx other than 404/410 is about the request or the VAPID signature; see docs/web-push.md.',
  ],
];

/** [meaning, fix] for a failure reason, or null when the dashboard has no words for it. */
export function explainFailure(reason) {
  if (exact[reason]) return exact[reason];
  const match = prefixes.find(([prefix]) => reason.startsWith(prefix));
  return match ? [match[1], match[2]] : null;
}
