import Type from 'typebox';
import type { TemplateFields } from '../../../domain/live-activities/live-activity-templates.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, IdParams, Success } from '../../schemas.ts';
import { changeLiveActivity } from './change-live-activity.ts';
import { Alert, oneLiveActivityView, LiveActivitySchema, Priority, RelevanceScore } from './live-activity-view.ts';
import { timingProperties } from './live-activity-timing.ts';

export function updateLiveActivityEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Update a Live Activity',
        description:
          "`fields` are merged into the current ones (a nested team merges by member, `null` removes an optional field) and the result is validated like a start's. With `alert` the update lights the screen (APNs priority 10); without, it is silent (priority 5); `priority` overrides either (`high` = 10, `low` = 5). `staleAt` applies to this content: an update without it clears the previous one, as on iOS. Sent to every iOS device that reported its activity token and to every Android subscriber. Counts one against the monthly quota.",
        tags: ['live activities'],
        params: IdParams('liveActivity'),
        body: Type.Object(
          {
            fields: Type.Object(
              {},
              {
                additionalProperties: true,
                description:
                  "Fields to change, merged into the current ones: see the template's <Template>Fields schema.",
              },
            ),
            alert: Type.Optional(Alert),
            staleAt: Type.Optional(
              Type.String({
                format: 'date-time',
                description: 'When the system should show this content as out of date.',
              }),
            ),
            ...timingProperties,
            priority: Type.Optional(Priority),
            relevanceScore: Type.Optional(RelevanceScore),
          },
          { additionalProperties: false },
        ),
        response: { 200: Success(LiveActivitySchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const { fields, ...rest } = request.body;
      const row = await changeLiveActivity(deps, request.auth!, reply, request.params.id, {
        event: 'update',
        fields: fields as TemplateFields,
        ...rest,
      });
      return reply
        .code(200)
        .send({ success: true, data: await oneLiveActivityView(deps.store.db, row, deps.clock.now()) });
    },
  );
}
