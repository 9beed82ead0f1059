/**
 * What Clarion accepts as an email address: something@domain.tld without spaces, at most 254 characters (RFC 5321's
 * path limit). Deliberately loose: the only real check of an address is mail that arrives, and Clarion sends none.
 */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$';
export const EMAIL_MAX_LENGTH = 254;

const pattern = new RegExp(EMAIL_PATTERN);

export function isEmailAddress(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && pattern.test(value.trim());
}
