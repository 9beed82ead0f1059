import type { ApnsEnvironment } from '../../domain/apns-environment.ts';
import type { DeliveryOutcome } from '../delivery-outcome.ts';
import type { PushContent } from '../push-content.ts';
import type { ApnsClient, ApnsSendOptions } from './apns-client.ts';

/**
 * Sends an APNs push to the host its token belongs to. A token's environment is known when the app said it at
 * registration or an earlier push learned it; then the push goes to that host only. When it is not known, production
 * (CLARION_APNS_URL) is tried first, and a 400 BadDeviceToken from it, which is what a development build's token gets
 * there, is followed by one try at the sandbox (CLARION_APNS_SANDBOX_URL). The host that accepts is reported in the
 * outcome (`apnsEnvironment`) so the send job stores it and the next push goes straight there. Only a token both hosts
 * refuse is dead, and only such answers count towards the batch's misconfiguration guard (batch-outcomes.ts).
 *
 * `clientFor` creates clients on demand, so an instance whose tokens are all production never opens a sandbox
 * connection.
 */
export function sendToApnsEnvironment(
  clientFor: (environment: ApnsEnvironment) => ApnsClient,
  token: string,
  content: PushContent,
  options: ApnsSendOptions,
  known: ApnsEnvironment | null | undefined,
): Promise<DeliveryOutcome> {
  // Not async: a known environment (every push after a token's first) returns the client's own promise, one promise
  // and its microtask turns fewer per iOS push (bench/fanout-cpu.ts, issue 11).
  if (known) return clientFor(known).send(token, content, options);
  return learnApnsEnvironment(clientFor, token, content, options);
}

async function learnApnsEnvironment(
  clientFor: (environment: ApnsEnvironment) => ApnsClient,
  token: string,
  content: PushContent,
  options: ApnsSendOptions,
): Promise<DeliveryOutcome> {
  const first = await clientFor('production').send(token, content, options);
  if (first.kind === 'delivered') return { kind: 'delivered', apnsEnvironment: 'production' };
  if (!isBadDeviceToken(first)) return first;
  const second = await clientFor('sandbox').send(token, content, options);
  if (second.kind === 'delivered') return { kind: 'delivered', apnsEnvironment: 'sandbox' };
  // Refused by both: the token is invalid (the production answer says so). A sandbox-only configuration problem (a
  // production-only key, BadEnvironmentKeyIdInToken) must not fail the batch for a token production refused anyway.
  if (second.kind === 'token_dead' || second.kind === 'fatal') return first;
  return second;
}

function isBadDeviceToken(outcome: DeliveryOutcome): boolean {
  return outcome.kind === 'token_dead' && outcome.providerReason === 'BadDeviceToken';
}
