import type { ColumnType, Generated } from 'kysely';
import type { ApnsEnvironment } from '../domain/apns-environment.ts';
import type { ContentColumns } from '../domain/notification-content.ts';

/**
 * Row types of every table, shared by both dialects. Timestamps are integer milliseconds since the epoch (BIGINT on
 * PostgreSQL, INTEGER on SQLite) so comparisons, the injected clock and both drivers agree without date parsing;
 * JSON columns are text for the same reason. The API turns them into ISO strings and objects at the edge.
 */
export interface AccountsTable {
  id: string;
  name: string;
  plan: string;
  monthly_limit: number | null;
  default_timezone: string | null;
  /** Names the account in public addresses (/join/{slug}/{channelCode}); unique, src/domain/account-slug.ts. */
  slug: string;
  /** 1: pushes carry receipts (docs/engagement.md); 0: none. */
  receipts_enabled: Generated<number>;
  created_at: number;
}

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  created_at: number;
}

export interface MembershipsTable {
  account_id: string;
  user_id: string;
  role: 'owner' | 'member';
  created_at: number;
}

export interface ChannelsTable {
  id: string;
  account_id: string;
  code: string;
  name: string;
  description: string | null;
  created_at: number;
  /** The publishable key (scoped to this channel) its public join page embeds; null while the join page is off. */
  join_key_id: string | null;
  /** That key's value, sealed with the instance key (src/domain/secret-box.ts, context = channel id). */
  join_key_secret: string | null;
  /** The app whose credentials deliver this channel's pushes (docs/apps.md); null: the built-in default app. */
  app_id: string | null;
  /** The frequency cap (domain/frequency-cap.ts): both set, or both null for none. */
  frequency_cap_count: number | null;
  frequency_cap_period_seconds: number | null;
  /** Quiet hours (domain/quiet-hours.ts): "HH:MM" both, or both null for none. */
  quiet_hours_start: string | null;
  quiet_hours_end: string | null;
}

/** Notifications delivered to each subscriber of a capped channel, for its frequency cap (domain/frequency-cap.ts). */
export interface FrequencyCapDeliveriesTable {
  subscriber_id: string;
  notification_id: string;
  delivered_at: number;
}

export interface SubscribersTable {
  id: string;
  account_id: string;
  channel_id: string;
  platform: 'ios' | 'android' | 'web';
  /** APNs hex token, FCM registration token, or the Web Push subscription as JSON text. */
  token: string;
  /** SHA-256 of the token's identity (for web: of the endpoint), its 32 bytes (migration 0017): what registration is idempotent on. */
  token_hash: Buffer;
  /** The push-to-start token reported without a template: serves every template without a token of its own (push_to_start_tokens). */
  push_to_start_token: string | null;
  /** The iOS version the app reported ("18.2"), or null: decides broadcast or per-token Live Activity delivery. */
  os_version: string | null;
  timezone: string | null;
  locale: string | null;
  external_id: string | null;
  status: 'active' | 'unsubscribed';
  unsubscribe_reason: string | null;
  created_at: number;
  updated_at: number;
  unsubscribed_at: number | null;
  /** iOS: the APNs environment the token belongs to, given at registration or learned on a push; null: not known yet. */
  apns_environment: ApnsEnvironment | null;
  /** When a push to it was last accepted by its provider (the send batch's settling transaction); null: never. */
  last_delivered_at: number | null;
}

/** One tag of a subscriber (PATCH /subscribers/{id}); sends can target subscribers by tag. */
export interface SubscriberTagsTable {
  subscriber_id: string;
  tag: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  kind: 'secret' | 'publishable';
  key_hash: string;
  key_start: string;
  /** JSON array of channel codes, or null for every channel of the account. */
  channel_scope: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  expires_at: number | null;
  /** Set on the old key when it is rotated: the id of the key that replaced it. */
  replaced_by: string | null;
}

/** A notification: its content's columns (src/domain/notification-content.ts) and where it stands. */
export interface NotificationsTable extends ContentColumns {
  id: string;
  account_id: string;
  channel_id: string;
  channel_code: string;
  status: 'scheduled' | 'queued' | 'sending' | 'sent' | 'canceled' | 'failed';
  send_at: number | null;
  recipient_count: number;
  delivered_count: number;
  failed_count: number;
  /** Targeted subscribers that unsubscribed or were removed between acceptance and sending (no push, no failure). */
  skipped_count: Generated<number>;
  /** Recipients whose push waits for the end of their quiet hours (part of pending; domain/quiet-hours.ts). */
  held_count: Generated<number>;
  /** JSON: the targeted part of the channel ({externalIds} | {subscriberIds} | {tags}); null for the whole channel. */
  audience: string | null;
  /** Subscribers the dispatch actually enqueued; null until the dispatch has finished paging the channel. */
  targeted_count: number | null;
  /** Dispatch jobs (one per time zone for local-time delivery, else one) that have not finished paging yet. */
  dispatches_pending: number;
  /** "HH:MM": deliver at this wall-clock time in each subscriber's time zone. */
  deliver_at_local_time: string | null;
  canceled_at: number | null;
  /** Why the notification failed as a whole, e.g. "expired" (its ttlSeconds passed before it could be sent). */
  failure_reason: string | null;
  created_at: number;
  updated_at: number;
}

export interface LiveActivitiesTable {
  id: string;
  account_id: string;
  channel_id: string;
  channel_code: string;
  template: string;
  /** JSON object: the template's current fields. */
  fields: string;
  /** JSON {title, body} or null. */
  alert: string | null;
  stale_at: number | null;
  relevance_score: number | null;
  /** `scheduled` until its start goes out (sendAt), then `active`; `ended`; `canceled` when canceled before it started. */
  status: 'scheduled' | 'active' | 'ended' | 'canceled';
  recipient_count: number;
  /** When the start was accepted. */
  created_at: number;
  /** When a start accepted with `sendAt` goes out; null for a start sent at once. */
  send_at: number | null;
  /** When it started (its push-to-start went out); the 8 hours count from it. Null before it started. */
  started_at: number | null;
  updated_at: number;
  ended_at: number | null;
  dismiss_at: number | null;
  /**
   * The timestamp of the activity's last lifecycle event (epoch ms, live-activity-lifecycle.ts nextPushTimestamp);
   * each event takes a greater one. APNs gets it in seconds.
   */
  push_timestamp: number;
  /** JSON: the targeted part of the channel, as on notifications (src/domain/audience.ts); null for the whole channel. */
  audience: string | null;
  /** The delivery mode asked for at start (docs/live-activities.md, "Broadcast"). */
  delivery: 'auto' | 'broadcast' | 'tokens';
  /** The APNs broadcast channel (base64), once created; null for per-token delivery. */
  apns_channel_id: string | null;
  /** iOS subscribers started on the broadcast channel (part of recipient_count). */
  broadcast_count: number;
  /** The caller's stream key (POST /live-activities/streams/{key}), or null for an activity started by id. */
  stream_key: string | null;
  /** Ends the activity after this long without an event (endAfterSecondsWithoutUpdate), or null. */
  auto_end_after_ms: number | null;
  /** The status line it ends with then (endStatus, written to statusLineField), or null to end with its last state. */
  auto_end_status: string | null;
  /** Unique subscribers whose receipts reported the activity received, opened, dismissed, an action tapped. */
  received_count: Generated<number>;
  opened_count: Generated<number>;
  dismissed_count: Generated<number>;
  actions_count: Generated<number>;
}

/** A push-to-start token an iOS device reported for one template (iOS issues one per ActivityAttributes type). */
export interface PushToStartTokensTable {
  subscriber_id: string;
  template: string;
  /** APNs hex token, lower-case. */
  token: string;
  created_at: number;
  updated_at: number;
}

/** The widget push token an iOS device reported (WidgetKit, iOS 26): where a widget reload goes. */
export interface WidgetPushTokensTable {
  subscriber_id: string;
  /** The subscriber's channel, for paging a channel's tokens (migration 0033). */
  channel_id: string;
  /** APNs hex token, lower-case. */
  token: string;
  created_at: number;
  /** When the device last reported it: an APNs 410 older than this does not forget it. */
  updated_at: number;
}

/** An APNs broadcast channel Clarion created, kept until it is deleted at APNs (the channel sweeper reads it). */
export interface ApnsBroadcastChannelsTable {
  channel_id: string;
  /** Null until the activity that uses it is written (a channel created by a dispatch that died is an orphan). */
  live_activity_id: string | null;
  environment: 'production' | 'sandbox';
  /** The app's bundle id the channel belongs to. */
  topic: string;
  created_at: number;
  deleted_at: number | null;
}

/** The per-activity update token an iOS device reported for a Live Activity (one per subscriber and activity). */
/** One lifecycle event of a Live Activity (migrations/shared/0028-live-activity-delivery-stats.ts). */
export interface LiveActivityEventsTable {
  live_activity_id: string;
  /** The event's `push_timestamp` (live_activities.push_timestamp when it was made): unique per activity. */
  push_timestamp: number;
  event: 'start' | 'update' | 'end';
  created_at: number;
  /** When its dispatch had enqueued every batch; null while it is dispatching. */
  dispatched_at: number | null;
}

/**
 * What one event reached on one platform in one mode (`tokens`: a request per device; `broadcast`: one request on the
 * APNs channel for every device on it): targeted, then delivered, failed or skipped (not sent: the subscriber left,
 * or a newer event made the push pointless).
 */
export interface LiveActivityEventStatsTable {
  live_activity_id: string;
  push_timestamp: number;
  platform: 'ios' | 'android' | 'web';
  mode: 'tokens' | 'broadcast';
  targeted: Generated<number>;
  delivered: Generated<number>;
  failed: Generated<number>;
  skipped: Generated<number>;
  /** Broadcast only: why the request on the channel failed. */
  failure_reason: string | null;
}

/** A device a Live Activity event's push failed to reach for good, and why. */
export interface LiveActivityFailuresTable {
  live_activity_id: string;
  push_timestamp: number;
  subscriber_id: string;
  platform: 'ios' | 'android' | 'web';
  reason: string;
  created_at: number;
}

export interface LiveActivityTokensTable {
  live_activity_id: string;
  subscriber_id: string;
  /** APNs hex token, lower-case. */
  token: string;
  created_at: number;
  updated_at: number;
}

export interface UsageCountersTable {
  account_id: string;
  /** "YYYY-MM", UTC. */
  period: string;
  used: number;
}

export interface IdempotencyKeysTable {
  account_id: string;
  /** Who sent the request: the API key's id (key_…) or, for a dashboard session, the user's id (usr_…). */
  principal_id: string;
  key: string;
  /** "POST /api/v1/notifications": a key is bound to one operation. */
  operation: string;
  request_hash: string;
  /** null while the first request is still being handled. */
  status_code: number | null;
  /** The 2xx body to replay; null while handling, and for good when the response showed a secret (no-store). */
  response_body: string | null;
  created_at: number;
}

export interface EventsTable {
  id: string;
  account_id: string;
  type: string;
  /** JSON: the event's `data` as webhooks will send it. */
  data: string;
  created_at: number;
  /** When the webhook relay created this event's messages (src/webhooks/webhook-relay.ts); null until then. */
  relayed_at: number | null;
}

export interface JobsTable {
  id: string;
  kind: string;
  /** JSON. */
  payload: string;
  state: 'available' | 'running' | 'completed' | 'failed';
  run_at: number;
  /** Attempts started so far: counted when a worker claims the job. */
  attempt: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  /** JSON array of {attempt, at, message}. */
  errors: string;
  unique_key: string | null;
  /** What the job waits on outside the process (a send job: its platform), or null (src/queue/worker-pool.ts). */
  lane: string | null;
  created_at: number;
  updated_at: number;
  finalized_at: number | null;
}

export interface DeliveryFailuresTable {
  notification_id: string;
  subscriber_id: string;
  platform: 'ios' | 'android' | 'web';
  reason: string;
  /** `failed`, or `skipped`: not sent on purpose, `reason` says why (migrations/shared/0020-skipped-deliveries.ts). */
  outcome: Generated<'failed' | 'skipped'>;
  created_at: number;
}

/**
 * Per-platform counters of a notification: targeted by the dispatch, then delivered or failed; then the unique
 * subscribers who received, opened or dismissed it or tapped an action, from their receipts (receipts-queries.ts).
 */
export interface NotificationPlatformStatsTable {
  notification_id: string;
  platform: 'ios' | 'android' | 'web';
  targeted: number;
  delivered: number;
  failed: number;
  received: Generated<number>;
  opened: Generated<number>;
  dismissed: Generated<number>;
  actions: Generated<number>;
}

/** One thing a subscriber did with a notification's push, reported once (domain/receipt.ts). */
export interface ReceiptsTable {
  notification_id: string;
  subscriber_id: string;
  event: 'received' | 'opened' | 'dismissed' | 'action';
  action_id: string | null;
  created_at: number;
}

/** One report of a Live Activity's receipt (live-activity-receipts-queries.ts): as `receipts`, per activity. */
export interface LiveActivityReceiptsTable {
  live_activity_id: string;
  subscriber_id: string;
  event: 'received' | 'opened' | 'dismissed' | 'action';
  action_id: string | null;
  created_at: number;
}

/** A dashboard sign-in. The cookie carries the token; only its SHA-256 is stored, so a database leak is no sign-in. */
export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  /** The account the session currently acts for (the user may belong to several and switch). */
  account_id: string;
  created_at: number;
  last_seen_at: number;
  /** The earlier of last use + idle timeout and creation + maximum lifetime; moved forward as the session is used. */
  expires_at: number;
}

/** Sign-in failures (and sign-ups), kept for the rate-limit window: per email (hashed) and per client address. */
export interface SigninAttemptsTable {
  kind: 'signin_failure' | 'signup';
  email_hash: string;
  ip: string;
  created_at: number;
}

/** The instance's VAPID key pair for Web Push (docs/web-push.md): one row, id 'current'. */
/** An account's own push credentials (docs/apps.md). Secrets sealed with the instance key, context = app id. */
export interface AppsTable {
  id: string;
  account_id: string;
  name: string;
  apns_key_id: string | null;
  apns_team_id: string | null;
  /** The bundle id, sent as apns-topic. */
  apns_topic: string | null;
  /** The .p8 PEM, sealed. */
  apns_sealed_key: string | null;
  fcm_project_id: string | null;
  fcm_client_email: string | null;
  /** The service-account JSON, sealed. */
  fcm_sealed_service_account: string | null;
  vapid_public_key: string;
  vapid_sealed_private_key: string;
  vapid_subject: string | null;
  /** 'failing' once a provider refused these credentials; back to 'ok' when they are replaced. */
  credentials_status: ColumnType<'ok' | 'failing', 'ok' | 'failing' | undefined, 'ok' | 'failing'>;
  credentials_error: string | null;
  credentials_failed_at: number | null;
  /** The throttle of sends to the app's channels that give none (docs/api.md, "Throttling"); null: none. */
  throttle_per_minute: number | null;
  created_at: number;
  updated_at: number;
}

export interface VapidKeysTable {
  id: string;
  /** base64url of the uncompressed P-256 point (65 bytes): what browsers subscribe with. */
  public_key: string;
  /** base64url of the 32-byte private scalar, sealed with the instance secret key (secret-box.ts). */
  sealed_private_key: string;
  created_at: number;
}

/** A webhook endpoint of an account (docs/webhooks.md). */
export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  /** JSON array of event types; ["*"] = every type. */
  event_types: string;
  /** The `whsec_…` signing secret, sealed with the instance key (src/domain/secret-box.ts, context = endpoint id). */
  secret: string;
  /** The secret before the last rotation, sealed; it keeps signing until `previous_secret_expires_at`. */
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: number | null;
  /** Start of the current run of failed attempts; null after a success. Five days of it disable the endpoint. */
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

/** A relay: where a sender that signs its webhooks (GitHub) posts for one channel (docs/live-activities.md, "Relays"). */
export interface RelaysTable {
  id: string;
  account_id: string;
  channel_id: string;
  /** Whose webhooks it takes: 'github-actions'. */
  sender: string;
  name: string | null;
  /** The `clr_rs_…` signing secret, sealed with the instance key (src/domain/secret-box.ts, context = relay id). */
  secret: string;
  created_at: number;
  /** The last webhook that passed its signature check; null before the first. */
  last_used_at: number | null;
}

/** One event (or test) for one endpoint: its id is the `webhook-id` of every attempt. */
export interface WebhookMessagesTable {
  id: string;
  account_id: string;
  endpoint_id: string;
  /** The event it reports; null for a test message. Unique per endpoint, so an event is never queued twice. */
  event_id: string | null;
  event_type: string;
  /** The exact JSON body sent on every attempt. */
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt_count: number;
  /** When the next scheduled attempt runs; null when none is scheduled. */
  next_attempt_at: number | null;
  delivered_at: number | null;
  created_at: number;
  updated_at: number;
}

/** One HTTP attempt of a webhook message, successful or not. */
export interface WebhookAttemptsTable {
  message_id: string;
  /** 1, 2, … per message. */
  attempt: number;
  kind: 'scheduled' | 'manual';
  url: string;
  /** null when no answer came (timeout, connection error, refused address). */
  status_code: number | null;
  duration_ms: number;
  /** The first 1 KiB of the response body. */
  response_excerpt: string | null;
  error: string | null;
  attempted_at: number;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  channels: ChannelsTable;
  subscribers: SubscribersTable;
  subscriber_tags: SubscriberTagsTable;
  api_keys: ApiKeysTable;
  notifications: NotificationsTable;
  live_activities: LiveActivitiesTable;
  live_activity_tokens: LiveActivityTokensTable;
  live_activity_events: LiveActivityEventsTable;
  live_activity_event_stats: LiveActivityEventStatsTable;
  live_activity_failures: LiveActivityFailuresTable;
  live_activity_receipts: LiveActivityReceiptsTable;
  push_to_start_tokens: PushToStartTokensTable;
  widget_push_tokens: WidgetPushTokensTable;
  apns_broadcast_channels: ApnsBroadcastChannelsTable;
  usage_counters: UsageCountersTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_attempts: WebhookAttemptsTable;
  relays: RelaysTable;
  jobs: JobsTable;
  delivery_failures: DeliveryFailuresTable;
  frequency_cap_deliveries: FrequencyCapDeliveriesTable;
  notification_platform_stats: NotificationPlatformStatsTable;
  receipts: ReceiptsTable;
  sessions: SessionsTable;
  signin_attempts: SigninAttemptsTable;
  vapid_keys: VapidKeysTable;
  apps: AppsTable;
}
