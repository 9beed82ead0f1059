import { describe, expect, it } from 'vitest';
import { accountSlugFromName, isAccountSlug, suffixedAccountSlug } from '../../src/domain/account-slug.ts';

describe('account slugs (src/domain/account-slug.ts)', () => {
  it.each([
    ['Acme', 'acme'],
    ['Acme GmbH & Co. KG', 'acme-gmbh-co-kg'],
    ['  Café Müller  ', 'cafe-muller'],
    ['ÉCOLE 42', 'ecole-42'],
    ['!!!', 'account'],
    ['東京', 'account'],
    ['ada@example.com', 'ada-example-com'],
    ['a'.repeat(80), 'a'.repeat(40)],
    [`${'a'.repeat(39)} b`, 'a'.repeat(39)],
  ])('"%s" → "%s"', (name, slug) => {
    expect(accountSlugFromName(name)).toBe(slug);
    expect(isAccountSlug(slug)).toBe(true);
  });

  it('appends six random characters to a taken base, still a slug', () => {
    const first = suffixedAccountSlug('acme');
    expect(first).toMatch(/^acme-[a-z2-9]{6}$/);
    expect(isAccountSlug(first)).toBe(true);
    expect(suffixedAccountSlug('acme')).not.toBe(first);
  });

  it.each(['', '-acme', 'Acme', 'acme_corp', 'a'.repeat(64), 'acme/x', 'acme.x'])('"%s" is not a slug', (value) => {
    expect(isAccountSlug(value)).toBe(false);
  });
});
