import Type, { type TSchema } from 'typebox';
import { CHANNEL_CODE_PATTERN, CHANNEL_CODE_SHAPE } from '../domain/channel-code.ts';
import { idPrefixes, type IdKind } from '../domain/ids.ts';
import { errorCodes } from './error-catalog.ts';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../domain/limits.ts';

/** Shared schema pieces: the envelopes of docs/design.md 2.1 and pagination. */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp.' });
export const ChannelCode = Type.String({
  pattern: CHANNEL_CODE_PATTERN,
  description: 'Code of the channel.',
  hint: `must be a channel code of ${CHANNEL_CODE_SHAPE}`,
});
/**
 * The `:id` path parameter of a resource of `kind`. Any string is accepted here: one that is not an id of the kind
 * names nothing and answers 404 (`isId`, src/domain/ids.ts), and the router bounds a parameter's length anyway.
 */
export function IdParams(kind: IdKind) {
  return Type.Object({ id: Type.String({ description: `${idPrefixes[kind]}_… identifier.` }) });
}

export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: StringEnum(errorCodes),
      message: Type.String(),
      details: Type.Optional(Type.Object({}, { additionalProperties: true })),
      requestId: Type.String({
        description: 'Quote this when reporting a problem; it is also in the X-Request-Id header.',
      }),
    }),
  },
  { $id: 'ErrorEnvelope', title: 'Error' },
);

export function Success<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}

export function SuccessList<T extends TSchema>(item: T) {
  return Type.Object({
    success: Type.Literal(true),
    data: Type.Array(item),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `cursor` for the next page; null on the last page.',
    }),
  });
}

/** The error statuses a route documents; each refers to the shared envelope. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((status) => [status, Type.Ref('ErrorEnvelope')]));
}

export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: PAGE_LIMIT_MAX,
      default: PAGE_LIMIT_DEFAULT,
      description: `Items per page, 1–${PAGE_LIMIT_MAX}.`,
    }),
  ),
  cursor: Type.Optional(Type.String({ maxLength: 64, description: 'The nextCursor of the previous page.' })),
};

/** A string that must be one of `values`, documented and validated as a JSON-schema enum. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
