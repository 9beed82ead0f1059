import type { FieldProblem } from './schema-errors.ts';

/**
 * Localized text of a notification or a Live Activity alert: a title and body per BCP 47 language tag, of which each subscriber gets the best
 * match for its own `locale`, by the lookup of RFC 4647 §3.4 (https://www.rfc-editor.org/rfc/rfc4647#section-3.4):
 * the subscriber's tag, then that tag with its last subtag removed, and so on (`fr-CA` → `fr`; `zh-Hant-TW` →
 * `zh-Hant` → `zh`), else the notification's own title and body. A variant replaces both: what it leaves out is left
 * out, not taken from another language.
 */
export interface LocalizedText {
  title?: string;
  body?: string;
}

/** Tag (canonical, as Intl.getCanonicalLocales writes it) → text. */
export type Localizations = Record<string, LocalizedText>;

export const MAX_LOCALIZATIONS = 50;

/** The canonical form of a BCP 47 tag (`en-us` → `en-US`), or null when it is not one. */
export function canonicalTag(tag: string): string | null {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical ?? null;
  } catch {
    return null;
  }
}

/** The tags a lookup tries for `locale`, most specific first (RFC 4647 §3.4, a singleton dropped with what follows). */
export function lookupChain(locale: string): string[] {
  const tag = canonicalTag(locale);
  if (tag === null) return [];
  const chain: string[] = [];
  const subtags = tag.split('-');
  while (subtags.length > 0) {
    chain.push(subtags.join('-'));
    subtags.pop();
    // A singleton (an extension's or private use's introducer) never ends a range.
    if (subtags.length > 0 && subtags.at(-1)!.length === 1) subtags.pop();
  }
  return chain;
}

/** The tag of the variant a subscriber with `locale` gets, or null: the notification's own title and body. */
export function bestLocalization(localizations: Localizations, locale: string | null): string | null {
  if (locale === null) return null;
  return lookupChain(locale).find((tag) => Object.hasOwn(localizations, tag)) ?? null;
}

/**
 * What is wrong with the keys of a `localizations` object found at `field`: each must be a BCP 47 tag, and no two may
 * name the same language once canonical (`de-de` and `de-DE`).
 */
export function localizationTagProblems(localizations: Record<string, unknown>, field: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Map<string, string>();
  for (const tag of Object.keys(localizations)) {
    const canonical = canonicalTag(tag);
    if (canonical === null)
      problems.push({ field: `${field}.${tag}`, message: 'must be keyed by a BCP 47 language tag, like de or fr-CA' });
    else if (seen.has(canonical))
      problems.push({ field: `${field}.${tag}`, message: `names the same language as ${seen.get(canonical)}` });
    else seen.set(canonical, tag);
  }
  return problems;
}

/** The same localizations keyed by canonical tags (en-us → en-US), the form lookups compare with. */
export function withCanonicalTags<Text>(localizations: Record<string, Text>): Record<string, Text> {
  return Object.fromEntries(Object.entries(localizations).map(([tag, text]) => [canonicalTag(tag) ?? tag, text]));
}
