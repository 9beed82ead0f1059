// @clarion/client: a typed client for Clarion's HTTP API (README.md).
export { createClarionClient, DEFAULT_TIMEOUT_MS, unwrap } from './clarion-client.ts';
export type {
  CallOptions,
  ClarionClient,
  ClarionClientOptions,
  EndLiveActivityRequest,
  LiveActivity,
  Notification,
  ReceiptReport,
  ReceiptResult,
  SendNotificationRequest,
  StartLiveActivityRequest,
  UpdateLiveActivityRequest,
} from './clarion-client.ts';
export { ClarionApiError, UNEXPECTED_RESPONSE, type ErrorCode } from './clarion-api-error.ts';
export { ClarionConnectionError } from './clarion-connection-error.ts';
export { DEFAULT_RETRY_OPTIONS, type RetryOptions } from './retry-policy.ts';
export type { components, paths } from './api-types.ts';
