import { isId } from './ids.ts';
import type { FieldProblem } from './schema-errors.ts';

/**
 * Who in a channel a send reaches (docs/api.md, "Targeting"): everyone (null), the devices of some people
 * (`externalIds`), some subscribers (`subscriberIds`), or the subscribers with tags (`all`: every one of these tags;
 * `any`: at least one; both given: both hold). Stored with the notification as JSON, so every dispatch page of it
 * targets the same audience (src/store/audience-filter.ts).
 */
export type Audience =
  { externalIds: string[] } | { subscriberIds: string[] } | { tags: { all?: string[]; any?: string[] } };

export interface AudienceInput {
  externalIds?: string[] | undefined;
  subscriberIds?: string[] | undefined;
  tags?: { all?: string[] | undefined; any?: string[] | undefined } | undefined;
}

/** The audience a send asked for (null: the whole channel), or the problems with it. Duplicates count once. */
export function readAudience(
  input: AudienceInput,
): { ok: true; audience: Audience | null } | { ok: false; problems: FieldProblem[] } {
  const given = (['externalIds', 'subscriberIds', 'tags'] as const).filter((field) => input[field] !== undefined);
  if (given.length > 1) {
    return {
      ok: false,
      problems: given.map((field) => ({
        field,
        message: 'give one audience: externalIds, subscriberIds or tags, not several',
      })),
    };
  }
  if (input.externalIds) return { ok: true, audience: { externalIds: [...new Set(input.externalIds)] } };
  if (input.subscriberIds) {
    const problems = input.subscriberIds.flatMap((id, index) =>
      isId('subscriber', id) ? [] : [{ field: `subscriberIds.${index}`, message: 'must be a subscriber id (sub_…)' }],
    );
    if (problems.length > 0) return { ok: false, problems: problems.slice(0, 10) };
    return { ok: true, audience: { subscriberIds: [...new Set(input.subscriberIds)] } };
  }
  if (input.tags) {
    const all = input.tags.all ? [...new Set(input.tags.all)].sort() : undefined;
    const any = input.tags.any ? [...new Set(input.tags.any)].sort() : undefined;
    if (!all?.length && !any?.length)
      return {
        ok: false,
        problems: [
          {
            field: 'tags',
            message:
              'must list tags to match, under "all" (a subscriber needs every one) or "any" (it needs one of them)',
          },
        ],
      };
    return { ok: true, audience: { tags: { ...(all?.length ? { all } : {}), ...(any?.length ? { any } : {}) } } };
  }
  return { ok: true, audience: null };
}

/** How the API shows a stored audience: the selector, and for id lists their size rather than 10,000 ids on every read. */
export type AudienceSummary =
  { type: 'externalIds' | 'subscriberIds'; count: number } | { type: 'tags'; all: string[]; any: string[] };

export function summarizeAudience(stored: string | null): AudienceSummary | null {
  if (stored === null) return null;
  const audience = JSON.parse(stored) as Audience;
  if ('externalIds' in audience) return { type: 'externalIds', count: audience.externalIds.length };
  if ('subscriberIds' in audience) return { type: 'subscriberIds', count: audience.subscriberIds.length };
  return { type: 'tags', all: audience.tags.all ?? [], any: audience.tags.any ?? [] };
}

export function parseAudience(stored: string | null): Audience | null {
  return stored === null ? null : (JSON.parse(stored) as Audience);
}
