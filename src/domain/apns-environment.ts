/**
 * The two APNs hosts a device token can belong to: a development build's token is issued by the sandbox
 * (api.sandbox.push.apple.com), an App Store, TestFlight or ad hoc build's by production (api.push.apple.com). Each
 * host answers 400 BadDeviceToken to the other's tokens. An app reads its own from the `aps-environment` entitlement
 * (docs/apps.md, "The APNs environment of a token").
 */
export const apnsEnvironments = ['sandbox', 'production'] as const;
export type ApnsEnvironment = (typeof apnsEnvironments)[number];
