/**
 * Why a validation message does not read well, or null when it does. A message follows its field name in the
 * dashboard ("priority: must be one of: normal, high"), so it must be a plain sentence: no validator jargon leaking
 * through (Ajv's "must match pattern", JSON pointers), no "undefined" or "[object Object]" from a bad template, and
 * no phrase said twice ("must be a string or a string", "a channel code: a channel code is…").
 */
export function unreadableBecause(message: unknown): string | null {
  if (typeof message !== 'string' || message.trim() === '') return 'is empty or not text';
  for (const leak of [
    'undefined',
    '[object Object]',
    'NaN',
    'must match',
    'must be equal to',
    'must NOT',
    'schema',
    'instance',
    '#/',
    'anyOf',
    'oneOf',
    'allOf',
  ]) {
    if (message.includes(leak)) return `contains "${leak}"`;
  }
  const words = message.toLowerCase().match(/[a-z0-9_.*-]+/g) ?? [];
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < words.length; i += 1) {
    const pair = `${words[i]} ${words[i + 1]}`;
    if (pairs.has(pair)) return `says "${pair}" twice`;
    pairs.add(pair);
  }
  return null;
}
