// Clarion's browser SDK (docs/web-push.md, "Subscribing a browser"): one small ES module, no framework, no build step.
// Served by every Clarion instance at /sdk/clarion-web.js with CORS, so a customer's page imports it from there:
//
//   import { Clarion } from 'https://push.example.com/sdk/clarion-web.js';
//   button.onclick = () => Clarion.subscribe({ baseUrl: 'https://push.example.com', publishableKey: 'clr_pk_…', channelCode: 'news' });
//
// subscribe() asks for permission, subscribes with the VAPID public key the channel's pushes are signed with (its
// app's, or the instance's) and registers the subscription with POST /api/v1/subscribers (platform "web", token =
// PushSubscription.toJSON()). The service worker that shows the pushes is /sdk/clarion-sw.js; a page registers it
// from its own origin (see the docs).

/** Where subscribe() registers the service worker when not told otherwise: the site's own copy (see the docs). */
const DEFAULT_SERVICE_WORKER = '/clarion-sw.js';
const STORAGE_PREFIX = 'clarion:';
/** Per joined channel, the push endpoint it was registered with: which channels share a push subscription. */
const ENDPOINT_PREFIX = 'clarion-endpoint:';

/** A failure the page can explain: `code` is one of the codes below or an API error code (docs/errors.md). */
export class ClarionError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'ClarionError';
    this.code = code;
    Object.assign(this, details);
  }
}

/** Whether this browser can receive Web Push at all (on iOS and iPadOS only from a Home Screen web app, 16.4+). */
export function isSupported() {
  return (
    typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window
  );
}

/**
 * Subscribes this browser to a channel; call it from a click (browsers ask for permission only after a user gesture).
 * Resolves with {subscriberId, subscription}; rejects with a ClarionError: `unsupported`, `permission_denied`,
 * `push_unavailable` (permission granted, but the browser has no push service), `service_worker_failed`,
 * `network_error`, `key_conflict` (below), or the API's own error code (e.g.
 * `channel_not_allowed`, `rate_limited`).
 *
 * A service worker registration holds one push subscription, made for one VAPID key. Channels of different apps are
 * signed with different keys, so joining one would replace the subscription another joined channel is delivered
 * to: subscribe() refuses that with `key_conflict`, naming those channels; give such a channel a `scope` of its own.
 */
export async function subscribe({
  baseUrl,
  publishableKey,
  channelCode,
  serviceWorker = DEFAULT_SERVICE_WORKER,
  scope,
  externalId,
} = {}) {
  requireOptions({ baseUrl, publishableKey, channelCode });
  if (!isSupported())
    throw new ClarionError(
      'unsupported',
      'This browser cannot receive push notifications here (on iPhone and iPad: add the site to the Home Screen first, iOS 16.4 or later).',
    );
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') {
    throw new ClarionError(
      'permission_denied',
      permission === 'denied'
        ? 'Notifications are blocked for this site: allow them in the browser’s site settings, then try again.'
        : 'Notifications were not allowed.',
    );
  }
  const registration = await activeRegistration(serviceWorker, scope);
  const keyOf = async (code) =>
    (
      await callApi(
        baseUrl,
        'GET',
        `/api/v1/web-push/public-key?channelCode=${encodeURIComponent(code)}`,
        publishableKey,
      )
    ).publicKey;
  const publicKey = await keyOf(channelCode);
  // The other channels joined through this subscription whose pushes are still signed with its key (a channel whose
  // key was rotated since gets nothing from it any more, and loses nothing when it is replaced).
  const stillDelivered = async (existing, existingKey) => {
    const sharing = joinedChannels(baseUrl).filter(
      (code) => code !== channelCode && storage()?.getItem(endpointKey(baseUrl, code)) === existing.endpoint,
    );
    const keys = await Promise.all(sharing.map((code) => keyOf(code).catch(() => null)));
    return sharing.filter(
      (_code, index) => keys[index] !== null && sameBytes(base64UrlToBytes(keys[index]), existingKey),
    );
  };
  const subscription = await pushSubscription(registration, publicKey, stillDelivered);
  const body = { channelCode, platform: 'web', token: subscription.toJSON(), ...(externalId ? { externalId } : {}) };
  const place = { timezone: Intl.DateTimeFormat().resolvedOptions().timeZone, locale: navigator.language };
  let subscriber;
  try {
    subscriber = await callApi(baseUrl, 'POST', '/api/v1/subscribers', publishableKey, { ...body, ...place });
  } catch (error) {
    // A browser may report a zone or language Clarion does not know ("Etc/Unknown"): register without them rather
    // than not at all (they only serve local-time delivery and text in the reader's language).
    const fields = error.details?.fields ?? [];
    if (
      error.code !== 'validation_failed' ||
      fields.length === 0 ||
      !fields.every((problem) => problem.field === 'timezone' || problem.field === 'locale')
    )
      throw error;
    subscriber = await callApi(baseUrl, 'POST', '/api/v1/subscribers', publishableKey, body);
  }
  remember(baseUrl, channelCode, subscriber.id, subscription.endpoint);
  return { subscriberId: subscriber.id, subscription: body.token };
}

/**
 * Unsubscribes this browser from a channel (POST /api/v1/subscribers/{id}/unsubscribe), sending the browser's push
 * subscription as proof that the subscriber is this browser's: a publishable key is public, so Clarion unsubscribes
 * with one only the subscriber whose registration it can show (docs/api.md, "Subscribers"). The browser's push
 * subscription itself is dropped only when no other channel of this Clarion instance still uses it, since one
 * subscription serves every channel joined through the same service worker. Resolves with true when there was a
 * subscriber to unsubscribe.
 *
 * A browser whose push subscription is already gone (the user blocked notifications, the browser expired it) has
 * nothing to prove with and needs nothing: the push service answers 404 or 410 to the next push, and Clarion
 * unsubscribes it then. A subscriber that Clarion no longer knows by this subscription (404) is not an error either.
 */
export async function unsubscribe({
  baseUrl,
  publishableKey,
  channelCode,
  serviceWorker = DEFAULT_SERVICE_WORKER,
  scope,
} = {}) {
  requireOptions({ baseUrl, publishableKey, channelCode });
  const id = subscriberId({ baseUrl, channelCode });
  const subscription = isSupported() ? await currentSubscription(scope ?? serviceWorker) : null;
  if (id && subscription) {
    try {
      await callApi(baseUrl, 'POST', `/api/v1/subscribers/${encodeURIComponent(id)}/unsubscribe`, publishableKey, {
        token: subscription.toJSON(),
      });
    } catch (error) {
      if (error.code !== 'not_found') throw error;
    }
  }
  forget(baseUrl, channelCode);
  if (subscription && !joinedChannels(baseUrl).length) await subscription.unsubscribe();
  return id !== null;
}

/** The subscriber id this browser got for the channel (sub_…), or null when it has not subscribed from here. */
export function subscriberId({ baseUrl, channelCode }) {
  return storage()?.getItem(storageKey(baseUrl, channelCode)) ?? null;
}

/**
 * Reports what became of a push (docs/engagement.md): `receipt` is the push's `clarionReceipt`, `event` one of
 * received, opened, dismissed or action (with `actionId`). For a page or a service worker of your own that shows
 * Clarion's pushes itself (a module can import this one); /sdk/clarion-sw.js reports its own. No key: the receipt is
 * the proof. Resolves with the result ('counted', 'duplicate', …: docs/engagement.md); rejects with a ClarionError
 * (invalid_receipt for a receipt Clarion did not make).
 */
export async function sendReceipt({ baseUrl, receipt, event, actionId } = {}) {
  requireOptions({ baseUrl, receipt, event });
  const body = { receipt, event, ...(actionId === undefined ? {} : { actionId }) };
  return (await callApi(baseUrl, 'POST', '/api/v1/receipts', null, body)).result;
}

export const Clarion = { subscribe, unsubscribe, isSupported, subscriberId, sendReceipt, ClarionError };
export default Clarion;

function requireOptions(options) {
  for (const [name, value] of Object.entries(options)) {
    if (typeof value !== 'string' || value === '')
      throw new ClarionError('invalid_options', `Clarion: "${name}" is required.`);
  }
}

/** The browser's push subscription under the service worker registered for `scopeOrScript`, or null. */
async function currentSubscription(scopeOrScript) {
  const registration = await navigator.serviceWorker.getRegistration(scopeOrScript);
  return registration ? registration.pushManager.getSubscription() : null;
}

/** The registration with an active worker: pushManager.subscribe() refuses a registration whose worker is still installing. */
async function activeRegistration(serviceWorker, scope) {
  let registration;
  try {
    registration = await navigator.serviceWorker.register(serviceWorker, scope ? { scope } : undefined);
  } catch (error) {
    throw new ClarionError(
      'service_worker_failed',
      `The service worker ${serviceWorker} could not be registered: ${error.message}`,
    );
  }
  if (registration.active) return registration;
  const worker = registration.installing ?? registration.waiting;
  await new Promise((resolve, reject) => {
    const check = () => {
      if (worker.state === 'activated') resolve();
      else if (worker.state === 'redundant')
        reject(new ClarionError('service_worker_failed', `The service worker ${serviceWorker} failed to install.`));
    };
    worker.addEventListener('statechange', check);
    check();
  });
  return registration;
}

/**
 * The browser's subscription for this VAPID key: the existing one if it was made with the same key, else a new one.
 * `stillDelivered(existing, existingKey)` names the other joined channels the existing subscription still receives,
 * which a new one would cut off.
 */
async function pushSubscription(registration, publicKey, stillDelivered) {
  const key = base64UrlToBytes(publicKey);
  const existing = await registration.pushManager.getSubscription();
  if (existing) {
    const existingKey = existing.options?.applicationServerKey
      ? new Uint8Array(existing.options.applicationServerKey)
      : null;
    if (existingKey && sameBytes(existingKey, key)) return existing;
    // Made for another key: a push service refuses pushes signed with any key but the one a subscription was made
    // with. Replaced when nothing else uses it (the key was rotated, or another service used this worker); refused
    // when it still carries other channels' pushes.
    const others = existingKey ? await stillDelivered(existing, existingKey) : [];
    if (others.length > 0) {
      throw new ClarionError(
        'key_conflict',
        `This channel's pushes are signed with another VAPID key than those of ${others.join(', ')}, which this browser gets through the same service worker; subscribe to it with a scope of its own.`,
        { channels: others },
      );
    }
    await existing.unsubscribe();
  }
  try {
    return await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  } catch (error) {
    // With permission granted, a refusal is the browser's: it has no push service to reach (Chromium without Google's
    // services answers "Registration failed - permission denied", others AbortError), which no setting of the site fixes.
    if (Notification.permission === 'granted' && (error.name === 'NotAllowedError' || error.name === 'AbortError')) {
      throw new ClarionError(
        'push_unavailable',
        `This browser has no push service to deliver notifications through (${error.message}). Try another browser, or this one with its push messaging enabled.`,
      );
    }
    throw new ClarionError(
      error.name === 'NotAllowedError' ? 'permission_denied' : 'subscribe_failed',
      `The browser could not subscribe to push: ${error.message}`,
    );
  }
}

/**
 * One API call in the envelope of docs/api.md; resolves with `data`, rejects with a ClarionError of the API's code.
 * `publishableKey` null: a call that takes no key (receipts).
 */
async function callApi(baseUrl, method, path, publishableKey, body) {
  let response;
  try {
    response = await fetch(`${baseUrl.replace(/\/+$/, '')}${path}`, {
      method,
      // No cookies: the key is the credential, and Clarion's CORS answer allows no credentialed requests.
      credentials: 'omit',
      headers: {
        ...(publishableKey === null ? {} : { authorization: `Bearer ${publishableKey}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ClarionError('network_error', `Could not reach Clarion at ${baseUrl}: ${error.message}`);
  }
  const payload = await response.json().catch(() => null);
  if (response.ok && payload?.success === true) return payload.data;
  const error = payload?.error;
  throw new ClarionError(
    error?.code ?? 'unexpected_response',
    error?.message ?? `Clarion answered ${response.status}.`,
    { status: response.status, details: error?.details ?? null },
  );
}

function base64UrlToBytes(text) {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
}

function sameBytes(a, b) {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

function storage() {
  try {
    return window.localStorage;
  } catch {
    // Storage blocked (some privacy modes): subscribing still works, only subscriberId() cannot recall it.
    return null;
  }
}

function storageKey(baseUrl, channelCode) {
  return `${STORAGE_PREFIX}${baseUrl.replace(/\/+$/, '')}:${channelCode}`;
}

function endpointKey(baseUrl, channelCode) {
  return `${ENDPOINT_PREFIX}${baseUrl.replace(/\/+$/, '')}:${channelCode}`;
}

function remember(baseUrl, channelCode, id, endpoint) {
  storage()?.setItem(storageKey(baseUrl, channelCode), id);
  storage()?.setItem(endpointKey(baseUrl, channelCode), endpoint);
}

function forget(baseUrl, channelCode) {
  storage()?.removeItem(storageKey(baseUrl, channelCode));
  storage()?.removeItem(endpointKey(baseUrl, channelCode));
}

/** The codes of the channels this browser joined on this Clarion instance. */
function joinedChannels(baseUrl) {
  const store = storage();
  if (!store) return [];
  const prefix = storageKey(baseUrl, '');
  return Array.from({ length: store.length }, (_, index) => store.key(index))
    .filter((key) => key?.startsWith(prefix))
    .map((key) => key.slice(prefix.length));
}
