import { ApiError } from '../../api-error.ts';
import type { AuthContext } from '../../app-types.ts';

/**
 * A relay lets whoever holds its secret drive Live Activities of its channel, as a key would; like keys, relays are
 * managed by a secret key without a channel scope or a dashboard session. Checked before any lookup.
 */
export function assertRelayManager(auth: AuthContext): void {
  if (auth.channels !== null) {
    throw new ApiError('forbidden', {
      message: 'Relays act on their channel as a key would: manage them with a secret key that has no channel scope.',
    });
  }
}
