import Type from 'typebox';
import type { TemplateFields } from '../../../domain/live-activities/live-activity-templates.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { changeLiveActivity } from './change-live-activity.ts';
import { Alert, oneLiveActivityView, LiveActivitySchema, Priority, RelevanceScore } from './live-activity-view.ts';

/** The body of an end: POST /live-activities/{id}/end, and with `channelCode` a stream's (stream-live-activity.ts). */
export const EndBody = Type.Object(
  {
    fields: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'Final fields, merged into the current ones.' }),
    ),
    dismissAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When the ended activity leaves the Lock Screen; at most 4 hours ahead.',
      }),
    ),
    alert: Type.Optional(Alert),
    priority: Type.Optional(Priority),
    relevanceScore: Type.Optional(RelevanceScore),
  },
  { additionalProperties: false },
);

export function endLiveActivityEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'End a Live Activity',
        description:
          'Optional final `fields` (merged like an update) and `dismissAt`: when the ended activity leaves the Lock Screen (a past time removes it at once; without it iOS keeps it up to 4 hours). An `alert` lights the screen with the end; `priority` `low` sends it at APNs priority 5 instead of 10. Send `{}` to end it as it is. The activity becomes `ended`; later updates and ends answer 409 `activity_ended`. Counts one against the monthly quota.',
        tags: ['live activities'],
        params: IdParams('liveActivity'),
        body: EndBody,
        response: { 200: Success(LiveActivitySchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const { fields, dismissAt, alert, priority, relevanceScore } = request.body;
      const row = await changeLiveActivity(deps, request.auth!, reply, request.params.id, {
        event: 'end',
        fields: fields as TemplateFields | undefined,
        dismissAt,
        alert,
        priority,
        relevanceScore,
      });
      return reply
        .code(200)
        .send({ success: true, data: await oneLiveActivityView(deps.store.db, row, deps.clock.now()) });
    },
  );
}
