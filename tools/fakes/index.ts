/**
 * Fake APNs, FCM and Web Push servers that speak the real protocols (HTTP/2, TLS, JWT/OAuth, the real error bodies), for
 * testing Clarion's delivery clients on loopback. See docs in each module and docs/protocols.md §6.
 */
export { ensureFakeTls, defaultFakeTlsDir, extraCaCertsWith, type FakeTls } from './fake-tls.ts';
export {
  createApnsSigningKey,
  createFcmServiceAccount,
  writeCredentialFile,
  type ApnsSigningKey,
  type FcmServiceAccount,
  type ServiceAccountJson,
} from './fake-credentials.ts';
export { startFakeApns, type FakeApns, type FakeApnsOptions } from './apns/apns-server.ts';
export { startFakeApnsHosts, type FakeApnsHosts } from './apns/apns-hosts.ts';
export { FakeApnsDevices } from './apns/apns-devices.ts';
export { FakeApnsKeyTokens, type FakeApnsKey, type ApnsEnvironment } from './apns/apns-provider-token.ts';
export type { ApnsOutcome, ApnsLatencyContext } from './apns/apns-behaviour.ts';
export type { ApnsRequestRecord, ApnsSessionRecord } from './apns/apns-record.ts';
export {
  FakeLiveActivities,
  type FakeLiveActivity,
  type FakeLiveActivityEvent,
  type FakeRefusedStart,
} from './apns/apns-live-activities.ts';
export {
  reportLiveActivityTokens,
  type TokenReport,
  type TokenReporter,
  type TokenReporterOptions,
} from './apns/apns-live-activity-reporter.ts';
export { apnsReasons, type ApnsReason } from './apns/apns-reasons.ts';
export { startFakeFcm, type FakeFcm, type FakeFcmOptions } from './fcm/fcm-server.ts';
export type { FcmOutcome, FcmLatencyContext } from './fcm/fcm-behaviour.ts';
export { FakeFcmDevices, type FcmDeviceDelivery } from './fcm/fcm-devices.ts';
export type { FcmSendRecord, FcmTokenRequestRecord } from './fcm/fcm-record.ts';
export { fcmErrorCodes, type FcmErrorCode } from './fcm/fcm-errors.ts';
export {
  startFakeWebPush,
  type FakeWebPush,
  type FakeWebPushOptions,
  type FakeSubscription,
} from './web-push/web-push-server.ts';
export {
  createSimulatedBrowser,
  type SimulatedBrowser,
  type PushSubscriptionJson,
} from './web-push/web-push-browser.ts';
export { decryptWebPush, browserKeysFrom, WebPushDecryptError, type BrowserKeys } from './web-push/web-push-decrypt.ts';
export type { WebPushOutcome, WebPushLatencyContext } from './web-push/web-push-behaviour.ts';
export type { WebPushServiceKind } from './web-push/web-push-answers.ts';
export type { WebPushRecord } from './web-push/web-push-record.ts';
export {
  parseDeclarativePushMessage,
  type DeclarativeMessage,
  type DeclarativeParse,
} from './web-push/web-push-declarative.ts';
