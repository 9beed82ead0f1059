import type { RequestRecordBase } from '../fake-record.ts';
import type { AssertionClaims } from './fcm-oauth.ts';

/** One `messages:send` request as the fake FCM received and answered it. */
export interface FcmSendRecord extends RequestRecordBase {
  /** Project named in the URL. */
  projectId: string | null;
  /** The bearer token sent, and the service account it was issued to (null when unknown or expired). */
  accessToken: string | null;
  clientEmail: string | null;
  body: string;
  /** `message` from the body when it parsed. */
  message: unknown;
  validateOnly: boolean;
  target: { kind: 'token' | 'topic' | 'condition' | 'fid'; value: string } | null;
  status: number;
  /** FcmError errorCode (or error.status when there is none) for failures; null on success. */
  errorCode: string | null;
  /** `name` answered on success, e.g. projects/p/messages/0:1700000000000000%31bd1c9631bd1c96. */
  name: string | null;
  /** True when the answer came from failNext or setTokenOutcome rather than from the protocol's rules. */
  injected: boolean;
  /** False when the client had gone before the answer could be sent. */
  answered: boolean;
}

/** One request to the OAuth token endpoint; `httpVersion` is '1.1' when it came like fetch() sends it, '2.0' over HTTP/2. */
export interface FcmTokenRequestRecord extends RequestRecordBase {
  grantType: string | null;
  /** The assertion's claims as sent (read even when rejected). */
  claims: AssertionClaims | null;
  status: number;
  /** OAuth error code (invalid_grant, ...) or null on success. */
  error: string | null;
  accessToken: string | null;
  answered: boolean;
}
