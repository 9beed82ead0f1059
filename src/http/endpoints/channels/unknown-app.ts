import { type ApiError, validationFailed } from '../../api-error.ts';

/** The 400 for an `appId` that names no app of the caller's account, whether creating a channel or moving one. */
export function unknownAppId(): ApiError {
  return validationFailed([{ field: 'appId', message: 'names no app of this account' }]);
}
