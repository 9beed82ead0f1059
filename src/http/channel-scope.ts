import { ApiError } from './api-error.ts';
import type { AuthContext } from './app-types.ts';

export function isChannelInScope(auth: AuthContext, code: string): boolean {
  return auth.channels === null || auth.channels.includes(code);
}

/**
 * 403 channel_not_allowed when the key's scope leaves the channel out. Checked before looking the channel up, so
 * the answer is the same whether or not the channel exists and a scoped key learns nothing about other channels.
 */
export function assertChannelInScope(auth: AuthContext, code: string): void {
  if (!isChannelInScope(auth, code)) {
    throw new ApiError('channel_not_allowed', { details: { channelCode: code } });
  }
}
