import { randomBytes } from 'node:crypto';

/**
 * An account's slug names it in public addresses: the join pages at /join/{slug}/{channelCode} (docs/web-push.md,
 * "Join page"). Lower-case letters, digits and "-", starting with a letter or digit, at most 63 characters — the
 * shape of a DNS label, so a slug reads well in a URL and never needs escaping.
 */
export const ACCOUNT_SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
const pattern = new RegExp(ACCOUNT_SLUG_PATTERN);

/** The longest base taken from a name: leaves room for the "-" and random suffix of a taken slug. */
const BASE_MAX = 40;

export function isAccountSlug(value: string): boolean {
  return pattern.test(value);
}

/** "Acme GmbH & Co." → "acme-gmbh-co"; a name with no letter or digit left gives "account". */
export function accountSlugFromName(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, BASE_MAX)
    .replace(/^-+|-+$/g, '');
  return base === '' ? 'account' : base;
}

/** The base with six random characters appended, for when the base is taken: "acme" → "acme-k3x9qa". */
export function suffixedAccountSlug(base: string): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  const suffix = [...randomBytes(6)].map((byte) => alphabet[byte % alphabet.length]).join('');
  return `${base}-${suffix}`;
}
