import Type, { type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { describeSchemaErrors, type FieldProblem } from './schema-errors.ts';

/**
 * The fixed Live Activity templates (DESIGN.md 2.5). Apps declare a matching ActivityAttributes type per template,
 * so a caller only ever sends a template name and its fields. Lengths keep the rendered APNs payload well under its
 * 4 KB limit: the longest possible `score` content-state is about 700 bytes.
 */
const Title = Type.String({ minLength: 1, maxLength: 100, description: 'Heading of the activity.' });
const Status = Type.String({ maxLength: 200, description: 'Status line text.' });
const Team = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 40 }),
    score: Type.Integer({ minimum: 0, maximum: 9999 }),
  },
  { additionalProperties: false },
);

/** The longest a Live Activity can run: iOS ends it after 8 hours. */
export const LIVE_ACTIVITY_MAX_SECONDS = 8 * 60 * 60;

export const templateSchemas = {
  progress: Type.Object(
    {
      title: Title,
      progress: Type.Number({
        minimum: 0,
        maximum: 1,
        description: 'Fraction done, from 0 to 1 (0.45 means 45 %).',
        hint: 'progress is a fraction from 0 to 1: send 0.45 for 45 %',
      }),
      status: Type.Optional(Status),
    },
    { additionalProperties: false, title: 'ProgressFields' },
  ),
  timer: Type.Object(
    {
      title: Title,
      endsAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the timer reaches zero (ISO 8601).', hint: 'endsAt is an ISO 8601 time with offset, like 2026-05-01T12:30:00Z' })),
      durationSeconds: Type.Optional(
        Type.Integer({ minimum: 1, maximum: LIVE_ACTIVITY_MAX_SECONDS, description: 'Seconds from now; stored as endsAt.', hint: `durationSeconds is a whole number of seconds from 1 to ${LIVE_ACTIVITY_MAX_SECONDS} (8 hours)` }),
      ),
      status: Type.Optional(Status),
    },
    { additionalProperties: false, title: 'TimerFields', description: 'Give endsAt or durationSeconds.' },
  ),
  score: Type.Object(
    {
      title: Title,
      home: Team,
      away: Team,
      period: Type.Optional(Type.String({ maxLength: 32, description: 'e.g. "2nd half", "Q3", "Final".' })),
      status: Type.Optional(Status),
    },
    { additionalProperties: false, title: 'ScoreFields' },
  ),
  steps: Type.Object(
    {
      title: Title,
      currentStep: Type.Integer({ minimum: 1, maximum: 20, description: 'The step under way, counting from 1.' }),
      totalSteps: Type.Integer({ minimum: 1, maximum: 20, description: 'How many steps there are.' }),
      status: Type.Optional(Status),
    },
    { additionalProperties: false, title: 'StepsFields' },
  ),
} satisfies Record<string, TSchema>;

export type TemplateName = keyof typeof templateSchemas;
export const templateNames = Object.keys(templateSchemas) as TemplateName[];

export function isTemplateName(value: string): value is TemplateName {
  return Object.hasOwn(templateSchemas, value);
}

const checkers = Object.fromEntries(
  templateNames.map((name) => [name, Compile(templateSchemas[name])]),
) as Record<TemplateName, ReturnType<typeof Compile>>;

export type TemplateFields = Record<string, unknown>;

export type TemplateResult = { ok: true; fields: TemplateFields } | { ok: false; problems: FieldProblem[] };

/**
 * Validates a template's fields (already merged with the current ones on update) and normalises them:
 * a timer's durationSeconds becomes an absolute endsAt, so later merges stay unambiguous.
 * Problems name fields as "fields.<path>".
 */
export function validateTemplateFields(template: TemplateName, fields: unknown, now: number): TemplateResult {
  const checker = checkers[template];
  if (!checker.Check(fields)) {
    return { ok: false, problems: describeSchemaErrors(templateSchemas[template], checker.Errors(fields), 'fields') };
  }
  const valid = { ...(fields as TemplateFields) };
  const problems: FieldProblem[] = [];
  if (template === 'timer') {
    if (valid.durationSeconds !== undefined) {
      valid.endsAt = new Date(now + (valid.durationSeconds as number) * 1000).toISOString();
      delete valid.durationSeconds;
    } else if (valid.endsAt === undefined) {
      problems.push({ field: 'fields.endsAt', message: 'a timer needs endsAt (ISO 8601) or durationSeconds' });
    } else {
      valid.endsAt = new Date(valid.endsAt as string).toISOString();
    }
  }
  if (template === 'steps' && (valid.currentStep as number) > (valid.totalSteps as number)) {
    problems.push({ field: 'fields.currentStep', message: 'currentStep cannot be greater than totalSteps' });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, fields: valid };
}

/** Update semantics: given fields replace current ones; nested objects (score teams) merge one level deep. */
export function mergeTemplateFields(current: TemplateFields, update: TemplateFields): TemplateFields {
  const merged: TemplateFields = { ...current };
  for (const [key, value] of Object.entries(update)) {
    const previous = merged[key];
    merged[key] = isPlainObject(previous) && isPlainObject(value) ? { ...previous, ...value } : value;
  }
  if (update.durationSeconds !== undefined) delete merged.endsAt;
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
