import { bestLocalization, localizationTagProblems, withCanonicalTags, type LocalizedText } from '../localizations.ts';
import type { FieldProblem } from '../schema-errors.ts';
import type { TemplateFields, TemplateName } from './live-activity-templates.ts';
import { liveActivityStateText } from './live-activity-text.ts';

/**
 * The alert of a Live Activity push (APNs `aps.alert`, docs/protocols.md 2.2): title, an optional body, and an optional
 * sound (a sound file in the app bundle, or "default"), which APNs takes inside the alert for Live Activities.
 * `localizations` holds the title and body in other languages, by canonical BCP 47 tag (domain/localizations.ts).
 */
export interface LiveActivityAlert {
  title: string;
  body?: string;
  sound?: string;
  localizations?: Record<string, AlertText>;
}

/** A localized alert: its own title (an alert always has one) and body; the sound is the alert's. */
export interface AlertText extends LocalizedText {
  title: string;
}

/** What is wrong with an alert the schema accepted: its localizations' language tags. */
export function alertProblems(alert: LiveActivityAlert, field = 'alert'): FieldProblem[] {
  return alert.localizations ? localizationTagProblems(alert.localizations, `${field}.localizations`) : [];
}

/** The alert as stored and pushed: its localizations keyed by canonical tags (en-us → en-US). */
export function canonicalAlert(alert: LiveActivityAlert): LiveActivityAlert {
  return alert.localizations ? { ...alert, localizations: withCanonicalTags(alert.localizations) } : alert;
}

/**
 * The alert one device gets: the variant that best matches its `locale` (RFC 4647 lookup, domain/localizations.ts)
 * with the alert's sound, else the alert's own text; never the localizations themselves, which are not for the wire.
 */
export function alertFor(alert: LiveActivityAlert, locale: string | null): LiveActivityAlert {
  const { localizations, ...own } = alert;
  if (!localizations) return alert;
  const tag = bestLocalization(localizations, locale);
  if (tag === null) return own;
  const { title, body } = localizations[tag]!;
  return { title, ...(body === undefined ? {} : { body }), ...(own.sound === undefined ? {} : { sound: own.sound }) };
}

/** The alert's own text (tag null) and each localized variant: what the payload-size check must fit. */
export function everyAlertVariant(alert: LiveActivityAlert): Array<{ tag: string | null; alert: LiveActivityAlert }> {
  const tags = Object.keys(alert.localizations ?? {});
  return [null, ...tags].map((tag) => ({ tag, alert: alertFor(alert, tag) }));
}

/**
 * `priority` on an update or end: `high` → APNs priority 10 (delivered at once, spends the device's Live Activity
 * budget), `low` → 5 (delivered when convenient, no budget). Without it, the event's own default (docs/protocols.md 2.4).
 */
export type LiveActivityPriority = 'high' | 'low';
export const liveActivityPriorities = ['high', 'low'] as const satisfies readonly LiveActivityPriority[];

/**
 * The relevance an event gives its activity (iOS orders an app's activities by it, higher first; docs/protocols.md
 * 2.2): the caller's `relevanceScore`; else, when the caller set a `priority`, the top of the scale for `high` (what
 * must be seen now comes first) and the bottom for `low`; else the activity keeps the one it has.
 */
export function relevanceOf(
  given: { relevanceScore?: number | undefined; priority?: LiveActivityPriority | undefined },
  current: number | null,
): number | null {
  if (given.relevanceScore !== undefined) return given.relevanceScore;
  if (given.priority !== undefined) return given.priority === 'high' ? RELEVANCE_MAX : RELEVANCE_MIN;
  return current;
}

/** The scale `relevanceScore` takes in the API (iOS takes any Double: Clarion fixes one so priorities map onto it). */
export const RELEVANCE_MIN = 0;
export const RELEVANCE_MAX = 100;

/**
 * The alert a start carries when the caller gave none. APNs requires one on `event: start` (docs/protocols.md 2.2), and
 * it is what the user sees when the activity appears, so it says the same as the activity: its title, and a line
 * summing up the fields ("45 % · Packing", "Ajax 2 – 1 PSV (2nd half)", "Step 2 of 4 · On the way").
 * Pure; `fields` are already validated.
 */
export function defaultStartAlert(template: TemplateName, fields: TemplateFields): LiveActivityAlert {
  // The device's time zone is unknown here, so a timer's end time is left to the activity's own countdown.
  return { title: String(fields.title), body: liveActivityStateText(template, fields) };
}
