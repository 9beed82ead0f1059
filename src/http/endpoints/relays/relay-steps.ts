import type { FastifyReply } from 'fastify';
import { isDeepStrictEqual } from 'node:util';
import Type, { type Static } from 'typebox';
import { mergeTemplateFields, type TemplateFields } from '../../../domain/live-activities/live-activity-templates.ts';
import type { RelayStep } from '../../../domain/relays/relay-step.ts';
import { streamKeyWasUsed } from '../../../store/live-activities/live-activities-queries.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';
import { StringEnum } from '../../schemas.ts';
import { driveStream } from '../live-activities/stream-live-activity.ts';

export const RelayResultSchema = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        key: Type.String({ description: 'The stream key of the alert or run.' }),
        event: StringEnum(['started', 'updated', 'ended', 'unchanged', 'ignored'] as const, {
          description:
            '`started`, `updated`, `ended`: what the webhook did to the activity. `unchanged`: it said what the activity already shows (no push, not charged). `ignored`: nothing to change (an end or a job update with no active activity, a run that already had one).',
        }),
        liveActivityId: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  },
  { title: 'RelayResult' },
);

type RelayResult = Static<typeof RelayResultSchema>['results'][number];

/**
 * Carries out a sender's steps in order, each on its stream key's activity (the stream driver): the same rules, quota
 * and pushes as POST /live-activities/streams/{key}. An update that changes no field is `unchanged`, so a sender that
 * repeats itself (Alertmanager every repeat_interval, a redelivered webhook) pushes and costs nothing. A step that
 * fails (the quota ran out, say) fails the webhook: the sender retries it, and the steps already done come back
 * `unchanged`.
 */
export async function runRelaySteps(
  deps: AppDependencies,
  auth: AuthContext,
  reply: FastifyReply,
  channel: { id: string; code: string },
  steps: RelayStep[],
): Promise<RelayResult[]> {
  const results: RelayResult[] = [];
  for (const step of steps) {
    const outcome = await driveStream(deps, auth, reply, channel.code, step.key, {
      start: async () => {
        if (step.start === null) return null;
        const used =
          step.startOnce &&
          (await streamKeyWasUsed(deps.store.db, {
            accountId: auth.accountId,
            channelId: channel.id,
            streamKey: step.key,
          }));
        return used ? null : { channelCode: channel.code, ...step.start };
      },
      change: (current) => {
        if (step.change === null) return null;
        const fields = JSON.parse(current.fields) as TemplateFields;
        if (
          step.change.event === 'update' &&
          isDeepStrictEqual(mergeTemplateFields(fields, step.change.fields), fields)
        )
          return null;
        return { event: step.change.event, fields: step.change.fields };
      },
    });
    results.push({ key: step.key, event: outcome.event, liveActivityId: outcome.row?.id ?? null });
  }
  return results;
}
