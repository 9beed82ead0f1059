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
}

export interface SubscribersTable {
  id: string;
  account_id: string;
  channel_id: string;
  platform: 'ios' | 'android' | 'web';
  /** APNs hex token, FCM registration token, or the Web Push subscription as JSON text. */
  token: string;
  /** SHA-256 of the token's identity (for web: of the endpoint): what registration is idempotent on. */
  token_hash: string;
  push_to_start_token: string | null;
  timezone: string | null;
  locale: string | null;
  external_id: string | null;
  status: 'active' | 'unsubscribed';
  unsubscribe_reason: string | null;
  created_at: number;
  updated_at: number;
  unsubscribed_at: number | null;
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

export interface NotificationsTable {
  id: string;
  account_id: string;
  channel_id: string;
  channel_code: string;
  title: string | null;
  body: string | null;
  url: string | null;
  /** JSON object of strings. */
  data: string | null;
  image_url: string | null;
  sound: string | null;
  badge: number | null;
  priority: 'normal' | 'high';
  ttl_seconds: number | null;
  status: 'scheduled' | 'queued' | 'sending' | 'sent' | 'canceled' | 'failed';
  send_at: number | null;
  recipient_count: number;
  delivered_count: number;
  failed_count: number;
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
  status: 'active' | 'ended';
  recipient_count: number;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
  dismiss_at: number | null;
}

export interface UsageCountersTable {
  account_id: string;
  /** "YYYY-MM", UTC. */
  period: string;
  used: number;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  /** "POST /api/v1/notifications": a key is bound to one operation. */
  operation: string;
  request_hash: string;
  /** null while the first request is still being handled. */
  status_code: number | null;
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
  created_at: number;
  updated_at: number;
  finalized_at: number | null;
}

export interface DeliveryFailuresTable {
  notification_id: string;
  subscriber_id: string;
  platform: 'ios' | 'android' | 'web';
  reason: string;
  created_at: number;
}

/** Per-platform delivery counters of a notification: targeted by the dispatch, then delivered or failed. */
export interface NotificationPlatformStatsTable {
  notification_id: string;
  platform: 'ios' | 'android' | 'web';
  targeted: number;
  delivered: number;
  failed: number;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  channels: ChannelsTable;
  subscribers: SubscribersTable;
  api_keys: ApiKeysTable;
  notifications: NotificationsTable;
  live_activities: LiveActivitiesTable;
  usage_counters: UsageCountersTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  jobs: JobsTable;
  delivery_failures: DeliveryFailuresTable;
  notification_platform_stats: NotificationPlatformStatsTable;
}
