import Type from 'typebox';
import { ApiError } from '../../api-error.ts';
import type { AuthContext } from '../../app-types.ts';

/** Path parameter of /users/{externalId}: the caller's own id for a person, as given at registration (externalId). */
export const ExternalIdParams = Type.Object({
  externalId: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'Your id for the person (the externalId their devices registered with).',
  }),
});

/**
 * Erasing a person removes their devices in every channel, so only a secret key without a channel scope (or a
 * dashboard session) may do it: a channel-scoped key would otherwise reach other channels. Checked before any lookup.
 */
export function assertUnscoped(auth: AuthContext): void {
  if (auth.channels !== null) {
    throw new ApiError('forbidden', {
      message: 'Erasing a user removes their devices in every channel: use a secret key that has no channel scope.',
    });
  }
}
