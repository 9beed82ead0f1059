import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api-types.ts';
import { ClarionApiError } from './clarion-api-error.ts';
import { DEFAULT_RETRY_OPTIONS, type RetryOptions } from './retry-policy.ts';
import { newIdempotencyKey, retryingFetch, sleep } from './retrying-fetch.ts';

type JsonBody<Operation> = Operation extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : never;
type SuccessData<Operation, Status extends number> = Operation extends {
  responses: { [S in Status]: { content: { 'application/json': { data: infer Data } } } };
}
  ? Data
  : never;

/** The body of POST /api/v1/notifications: `channelCode` and the content (title, body, url, data, sendAt, …). */
export type SendNotificationRequest = JsonBody<paths['/api/v1/notifications']['post']>;
/** A notification as the API shows it (id, status, stats, …). */
export type Notification = SuccessData<paths['/api/v1/notifications']['post'], 201>;
/** The body of POST /api/v1/live-activities: `channelCode`, `template`, `fields`, and optionally `alert`, `staleAt`, … */
export type StartLiveActivityRequest = JsonBody<paths['/api/v1/live-activities']['post']>;
export type UpdateLiveActivityRequest = JsonBody<paths['/api/v1/live-activities/{id}/update']['post']>;
export type EndLiveActivityRequest = JsonBody<paths['/api/v1/live-activities/{id}/end']['post']>;
/** A Live Activity as the API shows it. */
export type LiveActivity = SuccessData<paths['/api/v1/live-activities']['post'], 201>;
/** One report of POST /api/v1/receipts: a push's `clarionReceipt`, the event, and for `action` the button's id. */
export type ReceiptReport = NonNullable<JsonBody<paths['/api/v1/receipts']['post']>['receipts']>[number];
type ReceiptAnswer = SuccessData<paths['/api/v1/receipts']['post'], 202>;
/** What became of a report: `counted`, or why it did not count (`duplicate`, `ignored`, `expired`). */
export type ReceiptResult = NonNullable<ReceiptAnswer['result']>;

export interface ClarionClientOptions {
  /** Where Clarion answers, e.g. https://push.example.com (the `/api/v1/…` paths are appended). */
  baseUrl: string;
  /** A secret key (clr_sk_…) for sends; a publishable one (clr_pk_…) only registers subscribers. */
  apiKey: string;
  /** Retries of 429/503 answers (retry-policy.ts); `{ maxRetries: 0 }` turns them off. */
  retry?: Partial<RetryOptions>;
  /**
   * The longest one attempt may take, answer included, in milliseconds (default 30,000; 0: no limit). An attempt cut
   * off is retried like a failed connection; when every attempt fails the call throws ClarionConnectionError.
   */
  timeoutMs?: number;
  /** The fetch to send with (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** How to wait before a retry (default: a timer). */
  sleep?: (ms: number) => Promise<void>;
}

/** Options of one call. */
export interface CallOptions {
  /** Your own Idempotency-Key (1–255 visible ASCII characters), to make a send safe to repeat across restarts. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface ClarionClient {
  /** Every operation of the API, typed from its OpenAPI document (openapi-fetch): `api.GET('/api/v1/usage')`. */
  readonly api: Client<paths>;
  /** Sends a notification to every subscriber of a channel (POST /api/v1/notifications). */
  send(notification: SendNotificationRequest, options?: CallOptions): Promise<Notification>;
  /** A notification with its delivery stats (GET /api/v1/notifications/{id}). */
  getNotification(id: string, options?: CallOptions): Promise<Notification>;
  startLiveActivity(activity: StartLiveActivityRequest, options?: CallOptions): Promise<LiveActivity>;
  updateLiveActivity(id: string, update: UpdateLiveActivityRequest, options?: CallOptions): Promise<LiveActivity>;
  endLiveActivity(id: string, end?: EndLiveActivityRequest, options?: CallOptions): Promise<LiveActivity>;
  /** Cancels an activity started with `sendAt` before it starts (POST /api/v1/live-activities/{id}/cancel). */
  cancelLiveActivity(id: string, options?: CallOptions): Promise<LiveActivity>;
  /**
   * Reports what became of a push (POST /api/v1/receipts), for a server that relays its app's receipts; the receipt
   * is the proof, so any key does. A receipt Clarion did not make throws ClarionApiError `invalid_receipt`.
   */
  sendReceipt(report: ReceiptReport, options?: CallOptions): Promise<ReceiptResult>;
  /** Up to 100 reports at once (an app's queue): one result each, in order, `invalid` for a receipt Clarion did not make. */
  sendReceipts(reports: ReceiptReport[], options?: CallOptions): Promise<Array<ReceiptResult | 'invalid'>>;
}

/**
 * The answer's `data`, or the ClarionApiError its envelope describes. openapi-fetch returns `{data}` for 2xx and
 * `{error}` otherwise; callers of the shortcuts below get a value or an exception instead.
 */
export async function unwrap<Data>(
  call: Promise<{ data?: { data: Data }; error?: unknown; response: Response }>,
): Promise<Data> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw ClarionApiError.fromResponse(response, error);
  return data.data;
}

function callInit(options: CallOptions | undefined) {
  return {
    ...(options?.idempotencyKey ? { headers: { 'idempotency-key': options.idempotencyKey } } : {}),
    ...(options?.signal ? { signal: options.signal } : {}),
  };
}

/** The default `timeoutMs`: a send is answered once it is stored, well within this on a working server. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** A client for one Clarion instance and one API key. */
export function createClarionClient(options: ClarionClientOptions): ClarionClient {
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch({
      ...DEFAULT_RETRY_OPTIONS,
      ...options.retry,
      fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
      sleep: options.sleep ?? sleep,
      now: Date.now,
      newIdempotencyKey,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    }),
  });
  return {
    api,
    send: (notification, call) => unwrap(api.POST('/api/v1/notifications', { body: notification, ...callInit(call) })),
    getNotification: (id, call) =>
      unwrap(api.GET('/api/v1/notifications/{id}', { params: { path: { id } }, ...callInit(call) })),
    startLiveActivity: (activity, call) =>
      unwrap(api.POST('/api/v1/live-activities', { body: activity, ...callInit(call) })),
    updateLiveActivity: (id, update, call) =>
      unwrap(
        api.POST('/api/v1/live-activities/{id}/update', { params: { path: { id } }, body: update, ...callInit(call) }),
      ),
    endLiveActivity: (id, end = {}, call) =>
      unwrap(api.POST('/api/v1/live-activities/{id}/end', { params: { path: { id } }, body: end, ...callInit(call) })),
    cancelLiveActivity: (id, call) =>
      unwrap(api.POST('/api/v1/live-activities/{id}/cancel', { params: { path: { id } }, ...callInit(call) })),
    sendReceipt: async (report, call) =>
      (await unwrap(api.POST('/api/v1/receipts', { body: report, ...callInit(call) }))).result!,
    sendReceipts: async (reports, call) =>
      (await unwrap(api.POST('/api/v1/receipts', { body: { receipts: reports }, ...callInit(call) }))).results!,
  };
}
