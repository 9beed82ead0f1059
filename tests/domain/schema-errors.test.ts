import Type, { type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { describeSchemaErrors, type SchemaError } from '../../src/domain/schema-errors.ts';

/** Validates `value` against `schema` as the app does (TypeBox) and returns the field messages. */
function messagesFor(schema: TSchema, value: unknown) {
  const errors = [...Compile(schema).Errors(value)] as unknown as SchemaError[];
  return describeSchemaErrors(schema, errors);
}

describe('describeSchemaErrors: unions', () => {
  it.each([
    ['literals', Type.Union([Type.Literal('normal'), Type.Literal('high')]), 'HIGH', 'must be one of: normal, high'],
    ['one literal', Type.Union([Type.Literal('only')]), 'other', 'must be only'],
    ['types', Type.Union([Type.String(), Type.Null()]), 5, 'must be a string or null'],
    [
      'the same type twice',
      Type.Union([Type.String({ maxLength: 2 }), Type.String({ format: 'email' })]),
      5,
      'must be a string',
    ],
    ['literals and null', Type.Union([Type.Literal('a'), Type.Literal('b'), Type.Null()]), 'c', 'must be a, b or null'],
    [
      'a union inside a union',
      Type.Union([Type.Union([Type.Literal('a'), Type.Literal('b')]), Type.Literal('c')]),
      'd',
      'must be one of: a, b, c',
    ],
    ['numbers', Type.Union([Type.Literal(1), Type.Literal(2)]), 3, 'must be one of: 1, 2'],
  ])('%s', (_name, schema, value, message) => {
    expect(messagesFor(Type.Object({ x: schema }), { x: value })).toEqual([{ field: 'x', message }]);
  });
});
