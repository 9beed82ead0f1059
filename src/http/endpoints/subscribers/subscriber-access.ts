import { subscribersWithWidgetPushToken } from '../../../store/widget-push-tokens-queries.ts';
import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { normalizeToken } from '../../../domain/device-token.ts';
import { findChannelById } from '../../../store/channels-queries.ts';
import type { Database } from '../../../store/schema.ts';
import {
  channelCodesOf,
  lastFailureOf,
  recentFailuresOf,
  tagsOf,
} from '../../../store/subscriber-directory-queries.ts';
import { findSubscriber, type Subscriber } from '../../../store/subscribers-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AuthContext } from '../../app-types.ts';
import { isChannelInScope } from '../../channel-scope.ts';
import { failureView, RECENT_FAILURES_SHOWN, subscriberDetailView } from './subscriber-detail-view.ts';

/**
 * The caller's subscriber with its channel's code, or 404 not_found: also for another account's subscriber and for
 * one in a channel outside the key's scope, so a key learns nothing about subscribers it may not see.
 */
export async function loadSubscriber(
  db: Kysely<Database>,
  auth: AuthContext,
  id: string,
): Promise<{ subscriber: Subscriber; channelCode: string }> {
  const subscriber = await findSubscriber(db, auth.accountId, id);
  const channel = subscriber ? await findChannelById(db, subscriber.channel_id) : undefined;
  if (!subscriber || !channel || !isChannelInScope(auth, channel.code))
    throw new ApiError('not_found', { message: 'No subscriber with that id.' });
  return { subscriber, channelCode: channel.code };
}

/**
 * A publishable key is public (it ships inside every app, and a join page shows it), so holding it proves nothing
 * about a subscriber; holding the device token the subscriber registered with does. The routes where a publishable key
 * acts on one subscriber (PATCH /subscribers/{id}, POST /subscribers/{id}/unsubscribe, POST
 * /live-activities/{id}/tokens) demand it in `field`: without it, 403 forbidden, checked before any lookup so the
 * answer does not tell whether the subscriber exists. Secret keys and dashboard sessions need no proof.
 */
export function requireRegistrationProof(auth: AuthContext, proof: unknown, field: string, action: string): void {
  if (auth.kind === 'publishable' && proof === undefined) {
    throw new ApiError('forbidden', {
      message: `A publishable key may ${action} only the subscriber it registered: send its registration token as \`${field}\`.`,
    });
  }
}

/**
 * For a publishable key: `proof` must be the token `subscriber` registered with (the same string, or for the web the
 * same PushSubscription: its identity is the endpoint). The hashes are compared in constant time. A token that does
 * not match answers like an id that is not there (404 with `notFound`).
 */
export function assertRegisteredWith(
  auth: AuthContext,
  subscriber: Subscriber,
  proof: unknown,
  notFound: () => ApiError,
): void {
  if (auth.kind !== 'publishable') return;
  const normalized = normalizeToken(subscriber.platform, proof);
  const presented = normalized.ok ? normalized.value.tokenHash : Buffer.alloc(0);
  const expected = subscriber.token_hash;
  const same = presented.length === expected.length && timingSafeEqual(presented, expected);
  if (!same) throw notFound();
}

/** One subscriber as GET /subscribers/{id} shows it: with its tags and last failure. */
export async function subscriberDetail(db: Kysely<Database>, subscriber: Subscriber, channelCode: string) {
  const [tags, lastFailure, widgets] = await Promise.all([
    tagsOf(db, [subscriber.id]),
    lastFailureOf(db, subscriber.id),
    subscribersWithWidgetPushToken(db, [subscriber.id]),
  ]);
  return subscriberDetailView(subscriber, channelCode, {
    tags: tags.get(subscriber.id) ?? [],
    widgetPushEnabled: widgets.has(subscriber.id),
    lastFailure,
  });
}

/** One subscriber as GET /subscribers/{id} shows it: also its latest failed pushes (the dashboard's subscriber page). */
export async function subscriberWithFailures(db: Kysely<Database>, subscriber: Subscriber, channelCode: string) {
  const [tags, failures, widgets] = await Promise.all([
    tagsOf(db, [subscriber.id]),
    recentFailuresOf(db, subscriber.id, RECENT_FAILURES_SHOWN),
    subscribersWithWidgetPushToken(db, [subscriber.id]),
  ]);
  return {
    ...subscriberDetailView(subscriber, channelCode, {
      tags: tags.get(subscriber.id) ?? [],
      widgetPushEnabled: widgets.has(subscriber.id),
      lastFailure: failures[0] ?? null,
    }),
    recentFailures: failures.map(failureView),
  };
}

/** A page of subscribers as the lists show them: with their channel codes and tags, two queries for the page. */
export async function subscriberDetails(db: Kysely<Database>, subscribers: Subscriber[]) {
  const [codes, tags, widgets] = await Promise.all([
    channelCodesOf(
      db,
      subscribers.map((row) => row.channel_id),
    ),
    tagsOf(
      db,
      subscribers.map((row) => row.id),
    ),
    subscribersWithWidgetPushToken(
      db,
      subscribers.map((row) => row.id),
    ),
  ]);
  return subscribers.map((row) =>
    subscriberDetailView(row, codes.get(row.channel_id) ?? '', {
      tags: tags.get(row.id) ?? [],
      widgetPushEnabled: widgets.has(row.id),
    }),
  );
}
