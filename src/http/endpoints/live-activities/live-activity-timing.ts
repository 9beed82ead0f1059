import Type from 'typebox';
import { LIVE_ACTIVITY_MAX_MS } from '../../../domain/live-activities/live-activity-lifecycle.ts';
import {
  mergeTemplateFields,
  statusLineField,
  validateTemplateFields,
  type TemplateFields,
  type TemplateName,
} from '../../../domain/live-activities/live-activity-templates.ts';
import { MAX_SCHEDULE_AHEAD_MS } from '../../../domain/limits.ts';
import type { FieldProblem } from '../../../domain/schema-errors.ts';

const MAX_SECONDS = LIVE_ACTIVITY_MAX_MS / 1000;
/** The shortest silence that ends an activity: a minute, so a caller's normal rhythm is never mistaken for a crash. */
const AUTO_END_MIN_SECONDS = 60;

/**
 * Staleness and auto-end on a start, an update and a stream call (docs/live-activities.md, "Staleness and auto-end").
 */
export const timingProperties = {
  staleAfterSeconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_SECONDS,
      description:
        'Instead of `staleAt`: the content goes stale this many seconds from now (iOS `stale-date`; Android gets `staleAt`).',
    }),
  ),
  endAfterSecondsWithoutUpdate: Type.Optional(
    Type.Integer({
      minimum: AUTO_END_MIN_SECONDS,
      maximum: MAX_SECONDS,
      description:
        'Ends the activity when no update or end follows for this long (from each event), with its last state and `endStatus`: a crashed job leaves no frozen activity. Kept until an update gives another.',
    }),
  ),
  endStatus: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'With `endAfterSecondsWithoutUpdate`: the status line the activity ends with then (the `status` field; a `status` activity’s `message`).',
    }),
  ),
};

export interface TimingInput {
  staleAt?: string | undefined;
  staleAfterSeconds?: number | undefined;
  endAfterSecondsWithoutUpdate?: number | undefined;
  endStatus?: string | undefined;
}

/**
 * The content's stale time (`staleAt` parsed, or `staleAfterSeconds` from now; null for none), and the auto-end the
 * call asks for (undefined: none asked; an update then keeps the activity's). Problems are added to `problems`: both
 * stale forms at once, a time that is not ISO 8601 or not in the future, `endStatus` without
 * `endAfterSecondsWithoutUpdate`. Whether the template takes `endStatus` is endStatusProblems'.
 */
export function readTiming(
  input: TimingInput,
  now: number,
  problems: FieldProblem[],
): { staleAt: number | null; autoEnd: { afterMs: number; status: string | null } | undefined } {
  let staleAt: number | null = null;
  if (input.staleAt !== undefined && input.staleAfterSeconds !== undefined)
    problems.push({ field: 'staleAfterSeconds', message: 'goes instead of staleAt, not with it' });
  else if (input.staleAfterSeconds !== undefined) staleAt = now + input.staleAfterSeconds * 1000;
  else {
    const parsed = parseTime('staleAt', input.staleAt, problems);
    if (parsed !== null && parsed <= now)
      problems.push({ field: 'staleAt', message: 'must be an ISO 8601 time in the future' });
    else staleAt = parsed;
  }
  if (input.endAfterSecondsWithoutUpdate === undefined) {
    if (input.endStatus !== undefined)
      problems.push({ field: 'endStatus', message: 'goes with endAfterSecondsWithoutUpdate' });
    return { staleAt, autoEnd: undefined };
  }
  return { staleAt, autoEnd: { afterMs: input.endAfterSecondsWithoutUpdate * 1000, status: input.endStatus ?? null } };
}

/**
 * `endStatus` as the template's status line (statusLineField: `status`, or a `status` activity's `message`) over
 * `fields`: the problems the end would have with it, as `endStatus`'s.
 */
export function endStatusProblems(
  status: string | null | undefined,
  context: { template: TemplateName; fields: TemplateFields; now: number },
): FieldProblem[] {
  if (status === null || status === undefined) return [];
  const checked = validateTemplateFields(
    context.template,
    mergeTemplateFields(context.fields, { [statusLineField(context.template)]: status }),
    context.now,
  );
  return checked.ok ? [] : checked.problems.map((problem) => ({ field: 'endStatus', message: problem.message }));
}

/** An ISO 8601 time with its offset, as epoch ms; null when absent, or when not one (a problem named `field`). */
export function parseTime(field: string, value: string | undefined, problems: FieldProblem[]): number | null {
  if (value === undefined) return null;
  const parsed = Date.parse(value);
  if (!/(Z|[+-]\d{2}:\d{2})$/i.test(value) || Number.isNaN(parsed)) {
    problems.push({ field, message: 'must be an ISO 8601 time with offset, like 2026-05-01T09:00:00Z' });
    return null;
  }
  return parsed;
}

/** `sendAt` on a start: an ISO 8601 time in the future, at most as far ahead as a notification may be scheduled. */
export const SendAt = Type.String({
  format: 'date-time',
  description:
    'ISO 8601 time with offset, in the future, at most 365 days ahead: the activity is `scheduled` and starts then (docs/live-activities.md, "Scheduled starts"). Without it the activity starts at once.',
});

/** `sendAt` as epoch ms (null when absent); a problem when it is not an ISO 8601 time, not in the future or too far. */
export function readSendAt(value: string | undefined, now: number, problems: FieldProblem[]): number | null {
  const parsed = parseTime('sendAt', value, problems);
  if (parsed === null) return null;
  if (parsed <= now)
    problems.push({ field: 'sendAt', message: 'must be in the future: without sendAt the activity starts at once' });
  else if (parsed > now + MAX_SCHEDULE_AHEAD_MS)
    problems.push({ field: 'sendAt', message: 'can be at most 365 days ahead' });
  else return parsed;
  return null;
}
