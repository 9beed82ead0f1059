import Type, { type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { describeSchemaErrors, type FieldProblem } from '../schema-errors.ts';

/**
 * The fixed Live Activity templates (docs/design.md 2.5). Apps declare a matching ActivityAttributes type per template,
 * so a caller only ever sends a template name and its fields. Lengths keep the content state well under APNs' 4 KB
 * limit, so a silent update always fits: the longest possible one is a `metrics` state with four metrics, every string
 * at its maximum length in characters JSON writes as six bytes (control characters, `\u0001`) and every value a
 * 24-character number, 2,888 bytes (748 in ASCII; tests/delivery/live-activities/apns-live-activity-payload.test.ts).
 * An alert comes on top of it, so a long one can still pass the limit: the API answers that with 413
 * (src/http/endpoints/live-activities/live-activity-payload-size.ts).
 */
const Title = Type.String({ minLength: 1, maxLength: 100, description: 'Heading of the activity.' });
const Status = Type.String({ maxLength: 200, description: 'Status line text.' });
const Team = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 40, hint: 'a team name is 1 to 40 characters' }),
    score: Type.Integer({ minimum: 0, maximum: 9999, hint: 'a score is a whole number from 0 to 9999' }),
  },
  { additionalProperties: false },
);
/** The states of the `status` template, for ops alerts (docs/live-activities.md suggests a colour for each). */
export const statusStates = ['ok', 'warning', 'error', 'pending'] as const;
export type StatusState = (typeof statusStates)[number];
/** Which way a metric is going; the one-line text shows it as an arrow (live-activity-text.ts). */
const metricTrends = ['up', 'down', 'flat'] as const;
export type MetricTrend = (typeof metricTrends)[number];

const MAX_STEPS = 20;
const MAX_METRICS = 4;
const Metric = Type.Object(
  {
    label: Type.String({
      minLength: 1,
      maxLength: 24,
      description: 'What is measured, e.g. "CPU".',
      hint: 'a metric label is 1 to 24 characters',
    }),
    value: Type.Number({
      description: 'The reading, shown as sent (72, 0.25, 1500).',
      hint: 'a metric value is a number',
    }),
    unit: Type.Optional(
      Type.String({
        maxLength: 8,
        description: 'Shown after the value, e.g. "%", "ms".',
        hint: 'a metric unit is at most 8 characters',
      }),
    ),
    trend: Type.Optional(
      Type.Unsafe<MetricTrend>({
        type: 'string',
        enum: [...metricTrends],
        description: 'Which way the value is going: shown as ↑, ↓ or →.',
        hint: 'a metric trend is up, down or flat',
      }),
    ),
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
      endsAt: Type.Optional(
        Type.String({
          format: 'date-time',
          description: 'When the timer reaches zero (ISO 8601).',
          hint: 'endsAt is an ISO 8601 time with offset, like 2026-05-01T12:30:00Z',
        }),
      ),
      durationSeconds: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: LIVE_ACTIVITY_MAX_SECONDS,
          description: 'Seconds from now; stored as endsAt.',
          hint: `durationSeconds is a whole number of seconds from 1 to ${LIVE_ACTIVITY_MAX_SECONDS} (8 hours)`,
        }),
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
      currentStep: Type.Integer({
        minimum: 1,
        maximum: MAX_STEPS,
        description: 'The step under way, counting from 1.',
        hint: `currentStep is the step under way, a whole number from 1 to ${MAX_STEPS} (the first step is 1)`,
      }),
      totalSteps: Type.Integer({
        minimum: 1,
        maximum: MAX_STEPS,
        description: 'How many steps there are.',
        hint: `totalSteps is a whole number from 1 to ${MAX_STEPS}`,
      }),
      status: Type.Optional(Status),
    },
    { additionalProperties: false, title: 'StepsFields' },
  ),
  metrics: Type.Object(
    {
      title: Title,
      metrics: Type.Array(Metric, {
        minItems: 1,
        maxItems: MAX_METRICS,
        description: 'The readings shown, in order. An update that gives `metrics` replaces the whole list.',
        hint: `metrics is a list of 1 to ${MAX_METRICS} readings, each {label, value, unit?, trend?}`,
      }),
      status: Type.Optional(Status),
    },
    { additionalProperties: false, title: 'MetricsFields' },
  ),
  status: Type.Object(
    {
      title: Title,
      state: Type.Unsafe<StatusState>({
        type: 'string',
        enum: [...statusStates],
        description: 'ok, warning, error or pending.',
        hint: `state is one of ${statusStates.join(', ')}`,
      }),
      message: Type.Optional(
        Type.String({
          maxLength: 200,
          description: 'What is going on, e.g. "Disk full on db-2": this template\'s status line.',
          hint: 'message is at most 200 characters',
        }),
      ),
    },
    { additionalProperties: false, title: 'StatusFields' },
  ),
} satisfies Record<string, TSchema>;

export type TemplateName = keyof typeof templateSchemas;
export const templateNames = Object.keys(templateSchemas) as TemplateName[];

/**
 * The Swift `ActivityAttributes` type an app declares per template: APNs sends it as `attributes-type` on start, and
 * iOS starts the activity only if the app has a type of exactly that name (docs/protocols.md 2.2). Published in
 * docs/live-activities.md; renaming one breaks every app that declared it, so these never change.
 */
export const templateAttributesTypes: Readonly<Record<TemplateName, string>> = {
  progress: 'ClarionProgressAttributes',
  timer: 'ClarionTimerAttributes',
  score: 'ClarionScoreAttributes',
  steps: 'ClarionStepsAttributes',
  metrics: 'ClarionMetricsAttributes',
  status: 'ClarionStatusAttributes',
};

/**
 * The field that holds a template's status line: `message` for `status` (whose `state` is the status itself), `status`
 * for every other. `endStatus`, the text an activity ends with when it hears nothing more, is written there
 * (docs/live-activities.md, "Staleness and auto-end").
 */
export function statusLineField(template: TemplateName): 'status' | 'message' {
  return template === 'status' ? 'message' : 'status';
}

const checkers = Object.fromEntries(templateNames.map((name) => [name, Compile(templateSchemas[name])])) as Record<
  TemplateName,
  ReturnType<typeof Compile>
>;

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
    if (valid.durationSeconds !== undefined && valid.endsAt !== undefined) {
      problems.push({ field: 'fields.durationSeconds', message: 'give endsAt or durationSeconds, not both' });
    } else if (valid.durationSeconds !== undefined) {
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

/**
 * Update semantics, as JSON Merge Patch (RFC 7386) one level into nested objects: given fields replace current
 * ones, `null` removes one (to clear an optional `status`), nested objects (score teams) merge by member, and arrays
 * (a `metrics` list) are replaced as a whole, as RFC 7386 replaces every non-object value. A
 * timer given a new durationSeconds drops its old endsAt. The result is validated like a start's fields, so removing
 * a required field is a validation_failed naming it.
 */
export function mergeTemplateFields(current: TemplateFields, update: TemplateFields): TemplateFields {
  const merged: TemplateFields = { ...current };
  for (const [key, value] of Object.entries(update)) {
    const previous = merged[key];
    if (value === null) delete merged[key];
    else
      merged[key] = isPlainObject(previous) && isPlainObject(value) ? withoutNulls({ ...previous, ...value }) : value;
  }
  if (update.durationSeconds !== undefined && update.durationSeconds !== null) delete merged.endsAt;
  return merged;
}

function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
