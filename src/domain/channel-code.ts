/** Channel codes (docs/design.md 2.7): lower-case letters, digits, "_" and "-", starting with a letter or digit, 1–64 long. */
export const CHANNEL_CODE_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$';
/** What a channel code is made of, for messages: "must be a channel code of …", "a channel code is …". */
export const CHANNEL_CODE_SHAPE =
  '1 to 64 characters: lower-case letters, digits, "_" and "-", starting with a letter or digit';
export const CHANNEL_CODE_RULE = `a channel code is ${CHANNEL_CODE_SHAPE}`;

const pattern = new RegExp(CHANNEL_CODE_PATTERN);

export function isChannelCode(value: string): boolean {
  return pattern.test(value);
}
