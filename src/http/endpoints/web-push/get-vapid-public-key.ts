import Type from 'typebox';
import { resolveVapidPublicKey } from '../../../delivery/web-push/vapid-keys.ts';
import { localhostSubjectWarning, vapidSubject } from '../../../delivery/web-push/vapid-subject.ts';
import { findApp } from '../../../store/apps-queries.ts';
import { findChannelByCode } from '../../../store/channels-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';
import { unauthorized } from '../../auth.ts';
import { assertChannelInScope } from '../../channel-scope.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { ChannelCode, errorResponses, Nullable, Success } from '../../schemas.ts';

const PublicKey = Type.Object(
  {
    publicKey: Type.String({
      description:
        "The VAPID public key the channel's pushes are signed with (its app's; the instance's for a channel on the built-in app, or without `channelCode`): base64url of the 65-byte uncompressed P-256 point. Pass it as `applicationServerKey` to `PushManager.subscribe()`.",
    }),
    appId: Nullable(
      Type.String({
        description: "The app whose key this is (docs/apps.md); null for the instance's own key (the built-in app).",
      }),
    ),
    subjectWarning: Nullable(
      Type.String({
        description:
          "Set when Apple's push service will refuse the VAPID subject these pushes are signed with, so Safari and iOS browsers get no pushes: a localhost contact, derived from an http://localhost CLARION_BASE_URL. Says what to set. null otherwise.",
      }),
    ),
  },
  { title: 'WebPushPublicKey' },
);

const Query = Type.Object({ channelCode: Type.Optional(ChannelCode) }, { additionalProperties: false });

/**
 * GET /api/v1/web-push/public-key: what a browser subscribes with (docs/web-push.md). A push service accepts for a
 * subscription only pushes signed with the key it was made with, and a channel bound to an app is signed with that
 * app's pair (docs/apps.md), so a page asks with the channel's code. Public on purpose: the key is in every
 * subscription a browser makes, so a page may fetch the instance's key with its publishable key or with none; a
 * channel's needs a key of its account, which names the account. The subject itself is not shown; only a localhost
 * one, which is no one's contact, is named in the warning the dashboard shows.
 */
export function getVapidPublicKeyEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'The VAPID public key browsers subscribe with',
        description:
          "With `channelCode` (the channel the browser joins), the key that channel's pushes are signed with: its app's, or the instance's for a channel on the built-in app; this needs a publishable or secret key of the channel's account (or a dashboard session). Without `channelCode`, the instance's own key, to anyone.",
        tags: ['web-push'],
        querystring: Query,
        response: { 200: Success(PublicKey), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { channelCode } = request.query as { channelCode?: string };
      const data = channelCode === undefined ? null : await channelKey(deps, request.auth, channelCode);
      return { success: true as const, data: data ?? (await instanceKey(deps)) };
    },
  );
}

async function instanceKey(deps: AppDependencies) {
  const publicKey = await resolveVapidPublicKey(deps.store.db, deps.secretKey, deps.config, deps.clock.now());
  return { publicKey, appId: null, subjectWarning: localhostSubjectWarning(vapidSubject(deps.config)) };
}

/** The key of the channel's app, or null for a channel on the built-in app (the instance's key). */
async function channelKey(deps: AppDependencies, auth: AuthContext | null, channelCode: string) {
  if (!auth)
    throw unauthorized(
      "A channel's key is given to a key of its account: send the publishable key (Authorization: Bearer clr_pk_…).",
    );
  assertChannelInScope(auth, channelCode);
  const channel = await findChannelByCode(deps.store.db, auth.accountId, channelCode);
  if (!channel) throw new ApiError('channel_not_found', { details: { channelCode } });
  if (channel.app_id === null) return null;
  const app = await findApp(deps.store.db, auth.accountId, channel.app_id);
  if (!app) return null;
  const subject = app.vapid_subject ?? vapidSubject(deps.config);
  return { publicKey: app.vapid_public_key, appId: app.id, subjectWarning: localhostSubjectWarning(subject) };
}
