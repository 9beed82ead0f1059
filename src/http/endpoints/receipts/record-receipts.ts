import Type from 'typebox';
import { openReceipt, receiptEvents, receiptKey, RECEIPT_LENGTH, type ReceiptEvent } from '../../../domain/receipt.ts';
import type { FieldProblem } from '../../../domain/schema-errors.ts';
import {
  recordLiveActivityReceipts,
  type LiveActivityReceiptReport,
} from '../../../store/live-activities/live-activity-receipts-queries.ts';
import { recordReceipts, type ReceiptReport, type ReceiptResult } from '../../../store/receipts-queries.ts';
import { ApiError, validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { RateLimiter } from '../../rate-limiter.ts';
import { errorResponses, StringEnum, Success } from '../../schemas.ts';

/** The most receipts one request may carry: an app that queued them offline sends them in batches of this many. */
export const MAX_RECEIPTS_PER_REQUEST = 100;

const ACTION_ID_MAX_LENGTH = 64;

const Report = Type.Object(
  {
    receipt: Type.String({
      minLength: 1,
      maxLength: 200,
      description: `The push's \`clarionReceipt\` (${RECEIPT_LENGTH} characters), as it arrived.`,
    }),
    event: StringEnum(receiptEvents, {
      description:
        '`received`: the device got the push (shown, or handed to the app); `opened`: the person tapped it; `dismissed`: they swiped it away; `action`: they tapped one of its action buttons (with `actionId`). An open, a dismissal or an action also counts as received.',
    }),
    actionId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: ACTION_ID_MAX_LENGTH,
        description: 'With `action`: the id of the action tapped.',
      }),
    ),
  },
  { additionalProperties: false },
);

const Result = StringEnum(['counted', 'duplicate', 'ignored', 'expired'] as const, {
  description:
    "`counted`; `duplicate`: that event of that push was reported before and counts once; `ignored`: the account has turned receipts off, so nothing was stored; `expired`: the notification is older than the receipts' retention (CLARION_RECEIPT_RETENTION), so it is not counted.",
});

/**
 * POST /api/v1/receipts (docs/engagement.md): a device reports what happened to a push, proving it with the push's
 * receipt; no API key (the receipt is the proof; a publishable key is public and could not). One report, or a batch
 * of up to 100 that an app queued offline. Rate-limited per client address like a publishable key's installs.
 *
 * One report: 202, or 400 `invalid_receipt` when the receipt is forged or names what no longer exists. A batch: 202
 * with a result per report, an invalid receipt among them `invalid`, so that a queue holding a receipt of a
 * since-deleted notification still drains.
 */
export function recordReceiptsEndpoint(deps: AppDependencies): Endpoint {
  const key = receiptKey(deps.secretKey);
  const perAddress = new RateLimiter(
    deps.config.publishableRateLimitPerAddress,
    deps.config.publishableRateLimitBurst,
    deps.clock,
  );
  return endpoint(
    {
      schema: {
        summary: 'Report what happened to a push (received, opened, dismissed, an action)',
        description:
          'No API key: the receipt each push carries (`clarionReceipt`) is the proof. Send `{receipt, event}` for one report, or `{receipts: [...]}` for up to 100 queued ones. Each (receipt, event) counts once, however often it is sent.',
        tags: ['receipts'],
        body: Type.Object(
          {
            receipt: Type.Optional(Report.properties.receipt),
            event: Type.Optional(Report.properties.event),
            actionId: Type.Optional(Report.properties.actionId),
            receipts: Type.Optional(
              Type.Array(Report, {
                minItems: 1,
                maxItems: MAX_RECEIPTS_PER_REQUEST,
                description: 'Instead of one report: up to 100.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          202: Success(
            Type.Object({
              result: Type.Optional(Result),
              results: Type.Optional(
                Type.Array(Type.Union([Result, Type.Literal('invalid')]), {
                  description:
                    'For a batch: one per report, in order; `invalid`: a receipt Clarion did not issue or whose notification or subscriber is gone.',
                }),
              ),
            }),
          ),
          ...errorResponses(400, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const retryAfter = perAddress.take(request.ip);
      if (retryAfter > 0)
        throw new ApiError('rate_limited', {
          message: 'Too many receipts from this address; slow down.',
          headers: { 'retry-after': String(retryAfter) },
          details: { retryAfterSeconds: retryAfter },
        });
      const { receipts, ...single } = request.body;
      const batch = receipts !== undefined;
      const given = batch ? receipts : [single];
      checkShape(request.body, given, batch);
      const opened = given.map((item) => openReceipt(key, item.receipt!));
      const reports: ReceiptReport[] = [];
      const activityReports: LiveActivityReceiptReport[] = [];
      for (const [index, receipt] of opened.entries()) {
        const what = { event: given[index]!.event as ReceiptEvent, actionId: given[index]!.actionId ?? null };
        if (receipt?.kind === 'notification') reports.push({ ...receipt, ...what });
        if (receipt?.kind === 'liveActivity') activityReports.push({ ...receipt, ...what });
      }
      const now = deps.clock.now();
      const recorded =
        reports.length === 0 ? [] : await recordReceipts(deps.store, reports, now, deps.config.receiptRetention);
      const recordedOfActivities =
        activityReports.length === 0
          ? []
          : await deps.store.db
              .transaction()
              .execute((trx) => recordLiveActivityReceipts(trx, activityReports, now, deps.config.receiptRetention));
      // A receipt Clarion did not issue, and one whose notification, activity or subscriber is gone, are `invalid`.
      let next = 0;
      let nextOfActivities = 0;
      const results = opened.map((receipt): Answer => {
        const result = !receipt
          ? 'unknown'
          : receipt.kind === 'notification'
            ? recorded[next++]!
            : recordedOfActivities[nextOfActivities++]!;
        return result === 'unknown' ? 'invalid' : result;
      });
      if (!batch) {
        const [result] = results;
        if (result === 'invalid' || result === undefined) throw new ApiError('invalid_receipt');
        return reply.code(202).send({ success: true, data: { result } });
      }
      return reply.code(202).send({ success: true, data: { results } });
    },
  );
}

type Answer = Exclude<ReceiptResult, 'unknown'> | 'invalid';

/** One report (`receipt` and `event`) or a batch (`receipts`), never both; `actionId` with `action` and only then. */
function checkShape(
  body: Record<string, unknown>,
  given: ReadonlyArray<{ receipt?: string; event?: string; actionId?: string }>,
  batch: boolean,
): void {
  const problems: FieldProblem[] = [];
  if (batch) {
    for (const field of ['receipt', 'event', 'actionId'])
      if (body[field] !== undefined)
        problems.push({ field, message: 'goes inside each member of receipts, not beside it' });
  } else {
    if (given[0]!.receipt === undefined) problems.push({ field: 'receipt', message: 'is required (or send receipts)' });
    if (given[0]!.event === undefined) problems.push({ field: 'event', message: 'is required with receipt' });
  }
  for (const [index, item] of given.entries()) {
    const prefix = batch ? `receipts.${index}.` : '';
    if (item.event === 'action' && item.actionId === undefined)
      problems.push({
        field: `${prefix}actionId`,
        message: 'is required when event is action: the id of the button tapped',
      });
    if (item.event !== undefined && item.event !== 'action' && item.actionId !== undefined)
      problems.push({ field: `${prefix}actionId`, message: 'goes only with the action event' });
  }
  if (problems.length > 0) throw validationFailed(problems);
}
