import { describe, expect, it } from 'vitest';
import { bestLocalization, canonicalTag, lookupChain } from '../../src/domain/localizations.ts';

describe('localized text: RFC 4647 lookup', () => {
  it.each([
    ['fr-CA', ['fr-CA', 'fr']],
    ['zh-Hant-TW', ['zh-Hant-TW', 'zh-Hant', 'zh']],
    ['de', ['de']],
    ['en-us', ['en-US', 'en']],
    // RFC 4647's own example drops a singleton with the subtag after it.
    ['de-DE-u-co-phonebk', ['de-DE-u-co-phonebk', 'de-DE-u-co', 'de-DE', 'de']],
    ['not a tag', []],
  ])('%s tries %j', (locale, chain) => {
    expect(lookupChain(locale)).toEqual(chain);
  });

  it('picks the most specific variant the subscriber’s locale reaches, else none', () => {
    const localizations = { fr: { title: 'Bonjour' }, 'fr-CA': { title: 'Allô' }, 'zh-Hant': { title: '你好' } };
    expect(bestLocalization(localizations, 'fr-CA')).toBe('fr-CA');
    expect(bestLocalization(localizations, 'fr-BE')).toBe('fr');
    expect(bestLocalization(localizations, 'fr')).toBe('fr');
    expect(bestLocalization(localizations, 'zh-Hant-HK')).toBe('zh-Hant');
    // A less specific locale never reaches a more specific variant, nor another language.
    expect(bestLocalization(localizations, 'zh')).toBeNull();
    expect(bestLocalization({ 'fr-CA': { title: 'Allô' } }, 'fr')).toBeNull();
    expect(bestLocalization(localizations, 'de-DE')).toBeNull();
    expect(bestLocalization(localizations, null)).toBeNull();
  });

  it('writes tags in their canonical form, and knows a non-tag', () => {
    expect(canonicalTag('EN-gb')).toBe('en-GB');
    expect(canonicalTag('x')).toBeNull();
  });
});
