import Type from 'typebox';
import { resolveVapidPublicKey } from '../../../delivery/web-push/vapid-keys.ts';
import { localhostSubjectWarning, vapidSubject } from '../../../delivery/web-push/vapid-subject.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { Nullable, Success } from '../../schemas.ts';

const PublicKey = Type.Object(
  {
    publicKey: Type.String({
      description:
        "The instance's VAPID public key: base64url of the 65-byte uncompressed P-256 point. Pass it as `applicationServerKey` to `PushManager.subscribe()`.",
    }),
    subjectWarning: Nullable(
      Type.String({
        description:
          "Set when Apple's push service will refuse the VAPID subject this instance signs with, so Safari and iOS browsers get no pushes: a localhost contact, derived from an http://localhost CLARION_BASE_URL. Says what to set. null otherwise.",
      }),
    ),
  },
  { title: 'WebPushPublicKey' },
);

/**
 * GET /api/v1/web-push/public-key: what a browser subscribes with (docs/web-push.md). Public on purpose: the key is in
 * every subscription a browser makes, so a web page may fetch it with its publishable key or with none. The subject
 * itself is not shown; only a localhost one, which is no one's contact, is named in the warning the dashboard shows.
 */
export function getVapidPublicKeyEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'The VAPID public key browsers subscribe with',
        description:
          'No key needed (a publishable or secret key is accepted too). The same key for every account of this instance.',
        tags: ['web-push'],
        response: { 200: Success(PublicKey) },
      },
    },
    async () => {
      const publicKey = await resolveVapidPublicKey(deps.store.db, deps.secretKey, deps.config, deps.clock.now());
      return {
        success: true as const,
        data: { publicKey, subjectWarning: localhostSubjectWarning(vapidSubject(deps.config)) },
      };
    },
  );
}
