import type { ApnsEnvironment } from '../../domain/apns-environment.ts';
import type { DeliveryOutcome } from '../delivery-outcome.ts';
import type { PushContent } from '../push-content.ts';
import type { LiveActivityPush } from '../live-activities/live-activity-push.ts';
import { sendApnsLiveActivity } from '../live-activities/live-activity-senders.ts';
import type { ApnsClient, ApnsSendOptions } from './apns-client.ts';
import { APNS_WIDGET_PAYLOAD, buildApnsWidgetHeaders } from './apns-widget-push.ts';

/**
 * Sends an APNs push to the host its token belongs to. A token's environment is known when the app said it at
 * registration or an earlier push learned it; then the push goes to that host only. When it is not known, production
 * (CLARION_APNS_URL) is tried first, and one try at the sandbox (CLARION_APNS_SANDBOX_URL) follows when production
 * says either
 * - 400 BadDeviceToken: what a development build's token gets there, or
 * - 403 BadEnvironmentKeyIdInToken (or the BadEnvironmentKeyInToken spelling): the key is limited to the sandbox, as
 *   keys created since February 2025 are to one environment (docs/protocols.md 1.2), so production cannot say
 *   anything about the token.
 * The host that accepts is reported in the outcome (`apnsEnvironment`) so the send job stores it and the next push
 * goes straight there. Only a token both hosts refuse is dead, and only such answers count towards the batch's
 * misconfiguration guard (send-batch.ts). Notifications and Live Activity pushes (start, update, end) follow the
 * same rule.
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
  // and its microtask turns fewer per iOS push (bench/fanout-cpu.ts).
  if (known) return clientFor(known).send(token, content, options);
  return learnApnsEnvironment((environment) => clientFor(environment).send(token, content, options));
}

/** A Live Activity push (start to a push-to-start token, update or end to an activity token), by the same rule. */
export function sendLiveActivityToApnsEnvironment(
  clientFor: (environment: ApnsEnvironment) => ApnsClient,
  token: string,
  push: LiveActivityPush,
  known: ApnsEnvironment | null | undefined,
): Promise<DeliveryOutcome> {
  if (known) return sendApnsLiveActivity(clientFor(known), token, push);
  return learnApnsEnvironment((environment) => sendApnsLiveActivity(clientFor(environment), token, push));
}

/** A WidgetKit push (apns-widget-push.ts) to a widget push token, by the same rule. */
export function sendWidgetReloadToApnsEnvironment(
  clientFor: (environment: ApnsEnvironment) => ApnsClient,
  token: string,
  known: ApnsEnvironment | null | undefined,
): Promise<DeliveryOutcome> {
  const send = (client: ApnsClient) => client.sendRaw(token, buildApnsWidgetHeaders(client.topic), APNS_WIDGET_PAYLOAD);
  if (known) return send(clientFor(known));
  return learnApnsEnvironment((environment) => send(clientFor(environment)));
}

async function learnApnsEnvironment(
  send: (environment: ApnsEnvironment) => Promise<DeliveryOutcome>,
): Promise<DeliveryOutcome> {
  const first = await send('production');
  if (first.kind === 'delivered') return { kind: 'delivered', apnsEnvironment: 'production' };
  if (!isBadDeviceToken(first) && !isKeyOfOtherEnvironment(first)) return first;
  const second = await send('sandbox');
  if (second.kind === 'delivered') return { kind: 'delivered', apnsEnvironment: 'sandbox' };
  // Refused by both. After BadDeviceToken the token is invalid (the production answer says so): a sandbox-only
  // configuration problem (a production-only key) must not fail the batch for a token production refused anyway.
  // After a sandbox-only key's refusal at production, a sandbox BadDeviceToken means a production token this key
  // cannot reach: the configuration problem (production's answer) stands, and the token is kept.
  if (second.kind === 'token_dead' || second.kind === 'fatal') return first;
  return second;
}

function isBadDeviceToken(outcome: DeliveryOutcome): boolean {
  return outcome.kind === 'token_dead' && outcome.providerReason === 'BadDeviceToken';
}

/** Production's answer for a key limited to the sandbox (either spelling, docs/protocols.md 1.5). */
export function isKeyOfOtherEnvironment(outcome: DeliveryOutcome): boolean {
  return (
    outcome.kind === 'fatal' &&
    (outcome.reason === 'apns:BadEnvironmentKeyIdInToken' || outcome.reason === 'apns:BadEnvironmentKeyInToken')
  );
}
