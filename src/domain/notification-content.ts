import Type, { type TSchema } from 'typebox';
import {
  BODY_MAX_LENGTH,
  MAX_THROTTLE_PER_MINUTE,
  MAX_TTL_SECONDS,
  TITLE_MAX_LENGTH,
  URL_MAX_LENGTH,
} from './limits.ts';
import { localizationTagProblems, MAX_LOCALIZATIONS, withCanonicalTags, type Localizations } from './localizations.ts';
import { RECEIPT_FIELD } from './receipt.ts';

/**
 * The content of a notification — what a caller sends, what is stored, what the API shows back and what every push
 * carries — declared once, one entry per field. Each entry gives the field's request schema, its column, how a
 * request value is stored, how a stored value reads back, the view's schema and the checks a JSON schema cannot
 * say. Everything else derives from this table: the request body's properties (notification-body.ts), the columns a
 * send job keeps (src/delivery/notification-snapshots.ts), the payload-size check, the Notification view and the
 * PushContent the provider payloads are built from (src/delivery/push-content.ts). Adding a field is an entry here,
 * its migration, and the payload builder that uses it.
 */
interface ContentField<Given, Stored, Read> {
  column: string;
  /** The request body's property (always optional in the body). */
  request: TSchema;
  /** The property of the Notification object (docs/api.md). */
  view: TSchema;
  /** What is stored when the request gives `value` (undefined: not given). */
  toColumn(value: Given | undefined): Stored;
  fromColumn(stored: Stored): Read;
  /** What is wrong with a value the schema allowed, as `field: message` pairs; none when it is right. */
  problems?(value: Given): Array<{ field: string; message: string }>;
}

function field<const Column extends string, Given, Stored, Read>(
  spec: ContentField<Given, Stored, Read> & { column: Column },
): ContentField<Given, Stored, Read> & { column: Column } {
  return spec;
}

const nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);

/** A text field stored as given, null when absent. */
function text<const Column extends string>(
  column: Column,
  request: TSchema,
  view: TSchema = Type.String(),
  problems?: (value: string) => Array<{ field: string; message: string }>,
) {
  return field({
    column,
    request,
    view: nullable(view),
    toColumn: (value: string | undefined): string | null => value ?? null,
    fromColumn: (stored: string | null) => stored,
    ...(problems ? { problems } : {}),
  });
}

/** A yes/no field, false when absent; stored as 1 or 0 (the column is an INTEGER on both databases). */
function flag<const Column extends string>(column: Column, request: string, view: string) {
  return field({
    column,
    request: Type.Boolean({ description: request }),
    view: Type.Boolean({ description: view }),
    toColumn: (value: boolean | undefined): 0 | 1 => (value === true ? 1 : 0),
    fromColumn: (stored: 0 | 1): boolean => stored === 1,
  });
}

function isUrl(value: string, protocols: string[]): boolean {
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

const HTTPS_ONLY = 'must be an absolute https URL';
const httpsOnly = (name: string) => (value: string) =>
  isUrl(value, ['https:']) ? [] : [{ field: name, message: HTTPS_ONLY }];

/**
 * Data keys FCM refuses with 400 INVALID_ARGUMENT: `from`, `message_type`, and any key starting with `google` or
 * `gcm` (docs/protocols.md 3.3; the fake enforces the same), refused here with a 400 up front.
 */
export function isReservedFcmDataKey(key: string): boolean {
  return key === 'from' || key === 'message_type' || /^(google|gcm)/i.test(key);
}

/** The key that carries a notification's action buttons to apps: APNs payload and FCM data (docs/engagement.md). */
export const ACTIONS_FIELD = 'clarionActions';

/**
 * Keys a notification's `data` may not use besides FCM's own: "clarion" is ours, for Live Activities; "clarionReceipt"
 * carries the push's receipt (domain/receipt.ts); "clarionActions" its action buttons.
 */
const RESERVED_DATA_KEYS = new Set(['collapse_key', 'notification', 'clarion', RECEIPT_FIELD, ACTIONS_FIELD]);

/**
 * Action buttons: at most 3, Android's most (NotificationCompat.Builder.addAction,
 * https://developer.android.com/develop/ui/views/notifications/build-notification#Actions); Chrome shows the first 2
 * (Notification.maxActions), iOS the ones of the category the app registers.
 */
export const MAX_ACTIONS = 3;
export const ACTION_TITLE_MAX_LENGTH = 64;
/** An action id is what a tap reports (`actionId`) and what an iOS category's UNNotificationAction is identified by. */
const ACTION_ID_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';

export interface NotificationAction {
  id: string;
  title: string;
  url?: string;
}

function actionProblems(actions: NotificationAction[]): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  const seen = new Set<string>();
  actions.forEach((action, index) => {
    if (seen.has(action.id))
      problems.push({ field: `actions.${index}.id`, message: 'is the id of an earlier action: each needs its own' });
    seen.add(action.id);
    if (action.url !== undefined && !isUrl(action.url, ['http:', 'https:']))
      problems.push({ field: `actions.${index}.url`, message: 'must be an absolute http(s) URL' });
  });
  return problems;
}
export const MAX_DATA_ENTRIES = 50;

/** iOS 15+ interruption levels (aps.interruption-level, docs/protocols.md 1.3). */
export const INTERRUPTION_LEVELS = ['passive', 'active', 'time-sensitive', 'critical'] as const;
export type InterruptionLevel = (typeof INTERRUPTION_LEVELS)[number];
const interruptionLevel = (options: Record<string, unknown> = {}) =>
  Type.Union(
    INTERRUPTION_LEVELS.map((level) => Type.Literal(level)),
    options,
  );

export const notificationContentFields = {
  title: text(
    'title',
    Type.String({
      minLength: 1,
      maxLength: TITLE_MAX_LENGTH,
      description: 'Title. A notification needs a title, a body or both.',
    }),
  ),
  body: text('body', Type.String({ minLength: 1, maxLength: BODY_MAX_LENGTH, description: 'Text.' })),
  url: text(
    'url',
    Type.String({
      format: 'uri',
      maxLength: URL_MAX_LENGTH,
      description: 'Absolute http(s) URL opened when the notification is tapped.',
      hint: 'must be an absolute http(s) URL, like https://example.com/orders/42',
    }),
    Type.String(),
    (value) =>
      isUrl(value, ['http:', 'https:'])
        ? []
        : [{ field: 'url', message: 'must be an absolute http(s) URL, like https://example.com/orders/42' }],
  ),
  data: field({
    column: 'data',
    request: Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.String({ maxLength: 1024 }), {
      maxProperties: MAX_DATA_ENTRIES,
      description: 'Extra key/value strings delivered to the app.',
      hint: `must be an object of at most ${MAX_DATA_ENTRIES} string values`,
    }),
    view: nullable(Type.Record(Type.String(), Type.String())),
    // Stored as a JSON object of strings.
    toColumn: (value: Record<string, string> | undefined): string | null =>
      value === undefined ? null : JSON.stringify(value),
    fromColumn: (stored: string | null): Record<string, string> | null =>
      stored === null ? null : (JSON.parse(stored) as Record<string, string>),
    problems: (value) =>
      Object.keys(value)
        .filter((key) => RESERVED_DATA_KEYS.has(key) || isReservedFcmDataKey(key))
        .map((key) => ({
          field: `data.${key}`,
          message:
            'is a reserved key (from, message_type, collapse_key, notification, clarion, clarionReceipt, clarionActions, or starting with google or gcm)',
        })),
  }),
  imageUrl: text(
    'image_url',
    Type.String({
      format: 'uri',
      maxLength: URL_MAX_LENGTH,
      description: 'https URL of an image shown with the notification.',
      hint: HTTPS_ONLY,
    }),
    Type.String(),
    httpsOnly('imageUrl'),
  ),
  iconUrl: text(
    'icon_url',
    Type.String({
      format: 'uri',
      maxLength: URL_MAX_LENGTH,
      description:
        "https URL of a small icon browsers show with the notification (Web Push); iOS and Android show the app's icon.",
      hint: HTTPS_ONLY,
    }),
    Type.String({ description: 'Icon browsers show with it (Web Push).' }),
    httpsOnly('iconUrl'),
  ),
  sound: text(
    'sound',
    Type.String({ minLength: 1, maxLength: 64, description: 'Sound name; "default" for the platform sound.' }),
  ),
  badge: field({
    column: 'badge',
    request: Type.Integer({ minimum: 0, maximum: 99999, description: 'iOS app icon badge number.' }),
    view: nullable(Type.Integer()),
    toColumn: (value: number | undefined): number | null => value ?? null,
    fromColumn: (stored: number | null) => stored,
  }),
  priority: field({
    column: 'priority',
    request: Type.Union([Type.Literal('normal'), Type.Literal('high')], {
      default: 'high',
      description: 'high (default) delivers at once; normal lets the device batch for battery.',
    }),
    view: Type.Union([Type.Literal('normal'), Type.Literal('high')]),
    toColumn: (value: 'normal' | 'high' | undefined): 'normal' | 'high' => value ?? 'high',
    fromColumn: (stored: 'normal' | 'high') => stored,
  }),
  subtitle: text(
    'subtitle',
    Type.String({
      minLength: 1,
      maxLength: TITLE_MAX_LENGTH,
      description: 'iOS: a line under the title (aps.alert.subtitle). Android and browsers have none and leave it out.',
    }),
  ),
  category: text(
    'category',
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'iOS: the category (aps.category): the identifier of a UNNotificationCategory the app registered, which gives the notification its action buttons.',
    }),
  ),
  interruptionLevel: field({
    column: 'interruption_level',
    request: interruptionLevel({
      description:
        "iOS 15+: how the notification may interrupt (aps.interruption-level): passive (quietly, into the list), active (the default), time-sensitive (through Focus; the app needs the Time Sensitive Notifications capability), critical (sounds even when muted; the app needs Apple's Critical Alerts entitlement).",
    }),
    view: nullable(interruptionLevel()),
    toColumn: (value: InterruptionLevel | undefined): InterruptionLevel | null => value ?? null,
    fromColumn: (stored: InterruptionLevel | null) => stored,
  }),
  relevanceScore: field({
    column: 'relevance_score',
    request: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        "iOS 15+: 0 to 1 (aps.relevance-score): which of the app's notifications the notification summary puts first.",
    }),
    view: nullable(Type.Number()),
    toColumn: (value: number | undefined): number | null => value ?? null,
    fromColumn: (stored: number | null) => stored,
  }),
  targetContentId: text(
    'target_content_id',
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        "iOS: the window or scene a tap brings forward (aps.target-content-id), as the app's scenes name them.",
    }),
  ),
  androidChannelId: text(
    'android_channel_id',
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        "Android 8+: the app's notification channel to show it in (android.notification.channel_id); a channel the app has not created shows it in its default one. Not Clarion's channel: that is channelCode.",
    }),
  ),
  localizations: field({
    column: 'localizations',
    request: Type.Record(
      Type.String({ minLength: 1, maxLength: 35 }),
      Type.Object(
        {
          title: Type.Optional(Type.String({ minLength: 1, maxLength: TITLE_MAX_LENGTH })),
          body: Type.Optional(Type.String({ minLength: 1, maxLength: BODY_MAX_LENGTH })),
        },
        { additionalProperties: false },
      ),
      {
        maxProperties: MAX_LOCALIZATIONS,
        description:
          'The title and body in other languages, by BCP 47 tag: each subscriber gets the best match for its locale (fr-CA, then fr), else title and body. A variant replaces both.',
        hint: `must be an object of at most ${MAX_LOCALIZATIONS} language tags, each with a title, a body or both`,
      },
    ),
    view: nullable(
      Type.Record(
        Type.String(),
        Type.Object({ title: Type.Optional(Type.String()), body: Type.Optional(Type.String()) }),
      ),
    ),
    // Stored as JSON with canonical tags (en-us → en-US), the form lookups compare with.
    toColumn: (value: Localizations | undefined): string | null =>
      value === undefined ? null : JSON.stringify(withCanonicalTags(value)),
    fromColumn: (stored: string | null): Localizations | null =>
      stored === null ? null : (JSON.parse(stored) as Localizations),
    problems: (value) => [
      ...localizationTagProblems(value, 'localizations'),
      ...Object.entries(value)
        .filter(([, text]) => text.title === undefined && text.body === undefined)
        .map(([tag]) => ({ field: `localizations.${tag}`, message: 'needs a title, a body or both' })),
    ],
  }),
  actions: field({
    column: 'actions',
    request: Type.Array(
      Type.Object(
        {
          id: Type.String({
            pattern: ACTION_ID_PATTERN,
            description: 'What a tap on the button reports (`actionId`): letters, digits, _ . - (at most 64).',
            hint: 'must be 1 to 64 letters, digits, _ . or -',
          }),
          title: Type.String({ minLength: 1, maxLength: ACTION_TITLE_MAX_LENGTH, description: "The button's label." }),
          url: Type.Optional(
            Type.String({
              format: 'uri',
              maxLength: URL_MAX_LENGTH,
              description:
                'Absolute http(s) URL a tap opens. Without one a tap opens nothing: it reports the action (the notification.action webhook) for your server to act on.',
              hint: 'must be an absolute http(s) URL',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        maxItems: MAX_ACTIONS,
        description: `Action buttons, at most ${MAX_ACTIONS}: shown by browsers (Chrome shows the first 2), by Android apps and by iOS apps that register them (docs/engagement.md, "Action buttons"). A tap reports \`action\` with the button's id.`,
        hint: `must be a list of 1 to ${MAX_ACTIONS} actions, each {id, title, url?}`,
      },
    ),
    view: nullable(
      Type.Array(Type.Object({ id: Type.String(), title: Type.String(), url: Type.Optional(Type.String()) })),
    ),
    toColumn: (value: NotificationAction[] | undefined): string | null =>
      value === undefined
        ? null
        : JSON.stringify(value.map(({ id, title, url }) => ({ id, title, ...(url ? { url } : {}) }))),
    fromColumn: (stored: string | null): NotificationAction[] | null =>
      stored === null ? null : (JSON.parse(stored) as NotificationAction[]),
    problems: actionProblems,
  }),
  contentAvailable: flag(
    'content_available',
    'true: a silent push that wakes the app and shows nothing (iOS: a background push; Android: a data-only message), carrying `data` and `url`. It takes none of the fields that show something (title, body, subtitle, sound, badge, images, the alert options). Browsers show every push, so their subscribers are skipped as silent_not_supported.',
    'A silent push (contentAvailable).',
  ),
  ignoreFrequencyCap: flag(
    'ignore_frequency_cap',
    "true: pass the channel's frequency cap (a transactional message: a receipt, a sign-in code). It still counts towards the cap.",
    "Whether it passed the channel's frequency cap.",
  ),
  ignoreQuietHours: flag(
    'ignore_quiet_hours',
    "true: deliver at once even to subscribers inside their channel's quiet hours (an alarm, a security alert).",
    "Whether it went out inside the channel's quiet hours.",
  ),
  throttlePerMinute: field({
    column: 'throttle_per_minute',
    request: Type.Integer({
      minimum: 1,
      maximum: MAX_THROTTLE_PER_MINUTE,
      description:
        'Spread the fan-out: at most this many pushes a minute (100,000 subscribers at 10,000 a minute take 10 minutes), for servers that cannot take the traffic a push drives at once.',
    }),
    view: nullable(Type.Integer()),
    toColumn: (value: number | undefined): number | null => value ?? null,
    fromColumn: (stored: number | null) => stored,
  }),
  ttlSeconds: field({
    column: 'ttl_seconds',
    request: Type.Integer({
      minimum: 0,
      maximum: MAX_TTL_SECONDS,
      description: `How long the platform may hold an undeliverable notification, 0–${MAX_TTL_SECONDS} seconds (28 days).`,
    }),
    view: nullable(Type.Integer()),
    toColumn: (value: number | undefined): number | null => value ?? null,
    fromColumn: (stored: number | null) => stored,
  }),
};

type Fields = typeof notificationContentFields;
type FieldName = keyof Fields;
type Given<F> = F extends ContentField<infer G, unknown, unknown> ? G : never;
type StoredOf<F> = F extends { toColumn(value: never): infer S } ? S : never;
type ReadOf<F> = F extends { fromColumn(stored: never): infer R } ? R : never;

/** The content as a request gives it: every field optional. */
export type RequestedContent = { [K in FieldName]?: Given<Fields[K]> | undefined };
/** The content as stored: the notifications table's content columns (src/store/schema.ts). */
export type ContentColumns = { [K in FieldName as Fields[K]['column']]: StoredOf<Fields[K]> };
/** The content as it reads back: what the API shows and every push carries. */
export type NotificationContent = { [K in FieldName]: ReadOf<Fields[K]> };

const fieldNames = Object.keys(notificationContentFields) as FieldName[];
// Each entry's functions are typed by its own field; walking them all at once needs this one widening.
const entries = notificationContentFields as unknown as Record<FieldName, ContentField<unknown, unknown, unknown>>;

/** The content's columns, in the table's order: what a job that sends the notification keeps of its row. */
export const contentColumnNames = fieldNames.map((name) => entries[name].column) as Array<keyof ContentColumns>;

/** The request body's properties for the content (each optional). */
export const contentRequestProperties = Object.fromEntries(
  fieldNames.map((name) => [name, Type.Optional(entries[name].request)]),
) as { [K in FieldName]: ReturnType<typeof Type.Optional<TSchema>> };

/** The Notification object's properties for the content. */
export const contentViewProperties = Object.fromEntries(fieldNames.map((name) => [name, entries[name].view])) as Record<
  FieldName,
  TSchema
>;

/**
 * The fields that show something or make a sound: a silent push takes none of them. Apple: a background push's `aps`
 * holds only content-available, no key that would make the device interact with the person
 * (https://developer.apple.com/documentation/usernotifications/pushing-background-updates-to-your-app).
 */
const SHOWN_FIELDS = [
  'title',
  'body',
  'imageUrl',
  'iconUrl',
  'sound',
  'badge',
  'subtitle',
  'category',
  'interruptionLevel',
  'relevanceScore',
  'targetContentId',
  'androidChannelId',
  'localizations',
  'actions',
] as const satisfies readonly FieldName[];

/** What is wrong with requested content that its schema allowed: a title or a body, URL schemes, reserved data keys. */
export function contentProblems(content: RequestedContent): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  if (content.contentAvailable === true) {
    for (const name of SHOWN_FIELDS)
      if (content[name] !== undefined)
        problems.push({ field: name, message: 'a silent push (contentAvailable) shows nothing: leave it out' });
  } else if (content.title === undefined && content.body === undefined) {
    problems.push({ field: 'title', message: 'a notification needs a title, a body or both' });
  }
  for (const name of fieldNames) {
    const value = content[name];
    const check = entries[name].problems;
    if (value !== undefined && check) problems.push(...check(value));
  }
  return problems;
}

/** Requested content → its columns. */
export function contentToColumns(content: RequestedContent): ContentColumns {
  return Object.fromEntries(
    fieldNames.map((name) => [entries[name].column, entries[name].toColumn(content[name])]),
  ) as ContentColumns;
}

/** Stored columns → the content they hold. */
export function contentFromColumns(row: ContentColumns): NotificationContent {
  const columns = row as unknown as Record<string, unknown>;
  return Object.fromEntries(
    fieldNames.map((name) => [name, entries[name].fromColumn(columns[entries[name].column])]),
  ) as NotificationContent;
}

/** Requested content as it will read back once stored (the payload-size check builds the real payloads from it). */
export function contentAsStored(content: RequestedContent): NotificationContent {
  return contentFromColumns(contentToColumns(content));
}

/**
 * Content with nothing set (every field as a request that leaves it out stores it): the base that content built in
 * code spreads (a Live Activity's web notification, tests), so a new field changes nothing there.
 */
export const blankContent: Readonly<NotificationContent> = Object.freeze(contentAsStored({}));
