import Type from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import { newId } from '../../../domain/ids.ts';
import { dispatchWidgetReloadJob } from '../../../delivery/widgets/widget-jobs.ts';
import { countWidgetReloadTargets } from '../../../store/widget-push-tokens-queries.ts';
import { sendEndpoint, admitSend } from '../../admission.ts';
import type { AppDependencies } from '../../app-types.ts';
import type { Endpoint } from '../../endpoint.ts';
import { chargeOnTerms } from '../../quota.ts';
import { ChannelCode, errorResponses, Success } from '../../schemas.ts';

const WidgetReload = Type.Object(
  {
    id: Type.String({ description: "wrl_… identifier of this reload (in the worker's log lines about it)." }),
    channelCode: Type.String(),
    recipientCount: Type.Integer({
      description:
        'The devices queued: active iOS subscribers of the channel with a widget push token (`widgetPushToken`) when the reload was accepted.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'WidgetReload' },
);

/**
 * POST /api/v1/widgets/reload: asks every iOS 26 device of a channel that reported a widget push token to reload the
 * app's widgets (a WidgetKit push, docs/protocols.md 2.6). Admitted like any send (src/http/admission.ts: key standing,
 * channel scope 403, unknown channel 404, the channel's app), and it counts one against the monthly quota, like a
 * notification: it is a send the caller makes, and each one costs APNs requests to the whole channel. The reload is
 * durable: the 202 means its dispatch job is stored, in the same transaction as the quota's charge.
 */
export function reloadWidgetsEndpoint(deps: AppDependencies): Endpoint {
  return sendEndpoint(
    {
      schema: {
        summary: "Reload the app's widgets on every iOS device of a channel (WidgetKit push, iOS 26)",
        description:
          "Secret key. Sends `apns-push-type: widgets` to each active iOS subscriber of the channel that reported a `widgetPushToken`, through the channel's app; WidgetKit then reloads the widgets' timelines, within the budget the system gives the app. Counts one against the monthly quota. Answers 202 once the reload is queued.",
        tags: ['widgets'],
        body: Type.Object({ channelCode: ChannelCode }, { additionalProperties: false }),
        response: { 202: Success(WidgetReload), ...errorResponses(400, 401, 403, 404, 409, 415, 429) },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const now = deps.clock.now();
      const reload = await admitSend(deps, auth, reply, {
        channelCode: request.body.channelCode,
        prepare: (channel) => channel,
        store: async (trx, channel, terms) => {
          const used = await chargeOnTerms(trx, auth.accountId, terms);
          const id = newId('widgetReload', now);
          const recipientCount = await countWidgetReloadTargets(trx, channel.id);
          await dispatchWidgetReloadJob.enqueue(
            deps.queue,
            trx,
            { reloadId: id, accountId: auth.accountId, channelId: channel.id },
            { uniqueKey: `widget.dispatch:${id}` },
          );
          return { stored: { id, channelCode: channel.code, recipientCount, createdAt: toIso(now) }, used };
        },
      });
      return reply.code(202).send({ success: true, data: reload });
    },
  );
}
