import { bestLocalization } from '../domain/localizations.ts';
import { contentFromColumns, type ContentColumns, type NotificationContent } from '../domain/notification-content.ts';

/** The platform-neutral content of a notification push, built from a stored notification. */
export interface PushContent extends NotificationContent {
  /** The notification id: apns-collapse-id and FCM android.notification.tag, so a repeat replaces, not duplicates. */
  notificationId: string;
  /**
   * When the push expires (epoch ms), fixed from the notification's due time (push-expiry.ts); the provider gets what
   * is left of it. Absent or null: ttlSeconds counts from the moment of sending (content with no due time).
   */
  expiresAt?: number | null;
  /**
   * Web Push only: what the push's `Topic` is made from when it is not `notificationId` (web-push-message.ts), so a
   * push does not replace, nor get replaced by, undelivered pushes of another topic at the push service.
   */
  topic?: string;
  /** A localized variant's BCP 47 tag (localizedContent); absent for the notification's own title and body. */
  lang?: string;
}

export function pushContentOf(row: ContentColumns & { id: string }, expiresAt: number | null = null): PushContent {
  return { notificationId: row.id, ...contentFromColumns(row), expiresAt };
}

/**
 * The content each subscriber gets by its locale (domain/localizations.ts): the notification's own, or a variant with
 * the best localization's title and body. Variants are built once per batch and reused, so a provider client that
 * prepares a body per content object (apns-client.ts) still does so once per language.
 */
export function localizedContent(content: PushContent): (locale: string | null) => PushContent {
  const localizations = content.localizations;
  if (localizations === null) return () => content;
  const variants = new Map<string, PushContent>();
  return (locale) => {
    const tag = bestLocalization(localizations, locale);
    if (tag === null) return content;
    let variant = variants.get(tag);
    if (!variant) {
      const text = localizations[tag]!;
      variant = { ...content, title: text.title ?? null, body: text.body ?? null, lang: tag };
      variants.set(tag, variant);
    }
    return variant;
  };
}

/** The notification's own content and every localized variant: what the payload-size check must fit. */
export function everyVariant(content: PushContent): PushContent[] {
  const variantOf = localizedContent(content);
  return [content, ...Object.keys(content.localizations ?? {}).map((tag) => variantOf(tag))];
}
