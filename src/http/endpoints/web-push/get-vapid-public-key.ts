import Type from 'typebox';
import { resolveVapidPublicKey } from '../../../delivery/web-push/vapid-keys.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { Success } from '../../schemas.ts';

const PublicKey = Type.Object(
  {
    publicKey: Type.String({
      description: "The instance's VAPID public key: base64url of the 65-byte uncompressed P-256 point. Pass it as `applicationServerKey` to `PushManager.subscribe()`.",
    }),
  },
  { title: 'WebPushPublicKey' },
);

/**
 * GET /api/v1/web-push/public-key: what a browser subscribes with (docs/web-push.md). Public on purpose: the key is in
 * every subscription a browser makes, so a web page may fetch it with its publishable key or with none.
 */
export function getVapidPublicKeyHandler(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'The VAPID public key browsers subscribe with',
        description: 'No key needed (a publishable or secret key is accepted too). The same key for every account of this instance.',
        tags: ['web-push'],
        response: { 200: Success(PublicKey) },
      },
    },
    async () => {
      const publicKey = await resolveVapidPublicKey(deps.store.db, deps.secretKey, deps.config, deps.clock.now());
      return { success: true as const, data: { publicKey } };
    },
  );
}
