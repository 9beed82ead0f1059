import Type from 'typebox';
import { readAudience, type Audience, type AudienceInput } from '../../../domain/audience.ts';
import {
  MAX_AUDIENCE_EXTERNAL_IDS,
  MAX_AUDIENCE_SUBSCRIBER_IDS,
  MAX_AUDIENCE_TAGS,
  TAG_PATTERN,
} from '../../../domain/subscriber-tags.ts';
import { REQUEST_BODY_LIMIT_BYTES } from '../../../domain/limits.ts';
import { ApiError, validationFailed } from '../../api-error.ts';

const TagList = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ pattern: TAG_PATTERN, hint: 'must be a tag: 1–64 letters, digits or _ : . -' }), {
      minItems: 1,
      maxItems: MAX_AUDIENCE_TAGS,
      description,
    }),
  );

/**
 * The optional audience of a send (POST /notifications, POST /notify): at most one of these; none = the whole
 * channel. Subscribers outside the channel, unsubscribed or unknown are simply not targeted.
 */
export const audienceProperties = {
  externalIds: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
      minItems: 1,
      maxItems: MAX_AUDIENCE_EXTERNAL_IDS,
      description: `Only the devices of these people (their subscribers' externalId) in the channel; at most ${MAX_AUDIENCE_EXTERNAL_IDS.toLocaleString('en')}, the request may exceed 64 KiB by the size of this list (up to 1 MiB in all).`,
    }),
  ),
  subscriberIds: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      minItems: 1,
      maxItems: MAX_AUDIENCE_SUBSCRIBER_IDS,
      description: 'Only these subscribers (sub_…) of the channel.',
    }),
  ),
  tags: Type.Optional(
    Type.Object(
      {
        all: TagList('Subscribers with every one of these tags.'),
        any: TagList('Subscribers with at least one of these tags.'),
      },
      {
        additionalProperties: false,
        description:
          'Only the subscribers of the channel with these tags (PATCH /subscribers/{id}); with both lists, both must hold.',
      },
    ),
  ),
};

/** Takes the audience fields off a send's body: the audience (null = whole channel) and the rest of the body. */
export function takeAudience<Rest extends Record<string, unknown>>(
  body: Rest & AudienceInput,
): { audience: Audience | null; rest: Omit<Rest, keyof AudienceInput> } {
  const { externalIds, subscriberIds, tags, ...rest } = body;
  const read = readAudience({ externalIds, subscriberIds, tags });
  if (!read.ok) throw validationFailed(read.problems);
  return { audience: read.audience, rest };
}

/**
 * A send may be up to 1 MiB (AUDIENCE_REQUEST_BODY_LIMIT_BYTES) so that 10,000 external ids fit, but only its audience
 * lists may take it past the 64 KiB every other body is held to: the notification itself gets no more room.
 */
export function assertContentWithinBodyLimit(body: unknown, contentLength: string | undefined): void {
  if (typeof body !== 'object' || body === null) return;
  const { externalIds, subscriberIds } = body as Record<string, unknown>;
  const declared = Number(contentLength);
  const total = Number.isFinite(declared) && declared > 0 ? declared : Buffer.byteLength(JSON.stringify(body));
  const lists =
    (externalIds === undefined ? 0 : Buffer.byteLength(JSON.stringify(externalIds))) +
    (subscriberIds === undefined ? 0 : Buffer.byteLength(JSON.stringify(subscriberIds)));
  if (total - lists > REQUEST_BODY_LIMIT_BYTES) {
    throw new ApiError('payload_too_large', {
      message: `The request body is over the ${REQUEST_BODY_LIMIT_BYTES / 1024} KiB limit (audience lists aside).`,
      details: { limit: 'request_body', limitBytes: REQUEST_BODY_LIMIT_BYTES },
    });
  }
}
