// Clarion's service worker (docs/web-push.md, "The service worker"): shows each push as a notification and, on a
// click, focuses the tab already showing its url or opens it. A classic script, not a module, so a site can pull it
// into a service worker of its own origin with one line, in every browser that has Web Push:
//
//   importScripts('https://push.example.com/sdk/clarion-sw.js');
//
// The push message, decrypted by the browser, is a declarative push message (docs/web-push.md): JSON with
// "web_push": 8030, a `notification` {title, body, navigate, tag, image, icon, actions, data} and `app_badge`, which Safari
// 18.4+ can show without this worker and which this worker shows in every other browser. `tag` is the notification id
// (or a Live Activity's id), so a repeat or an update replaces the notification in place. The flat form Clarion sent
// before, {title, body, url, image, icon, badge, data, tag}, is still read.
//
// A site whose own service worker also handles other pushes sets `self.ClarionServiceWorkerManualEvents = true`
// before importScripts and calls self.ClarionServiceWorker.handlePush(event) / .handleNotificationClick(event) /
// .handleNotificationClose(event) from its own listeners for the pushes and notifications that are Clarion's
// (notification.data.clarion === true).
//
// Action buttons (`notification.actions`) are shown with it; a click on one opens the button's own url, if it has one
// (`notification.data.actionUrls`), and opens nothing otherwise.
//
// A push's `clarionReceipt` (docs/engagement.md) is reported to Clarion's POST /api/v1/receipts: `received` when the
// notification is shown, `opened` on a click (`action` with the button's id on a click of one of its actions),
// `dismissed` when it is closed without a click.
(function clarionServiceWorker() {
  'use strict';

  // Clarion's own address, written in by the server that serves this file (src/http/endpoints/sdk/sdk-files.ts); a
  // copy served from elsewhere reports to the origin it runs on.
  const CONFIGURED_BASE_URL = '__CLARION_BASE_URL__';
  const receiptsUrl = new URL(
    '/api/v1/receipts',
    /^https?:\/\//.test(CONFIGURED_BASE_URL) ? CONFIGURED_BASE_URL : self.location.href,
  ).href;

  /** Tells Clarion what became of a push; a report that fails is dropped, never retried into the next push. */
  function reportReceipt(receipt, event, actionId) {
    if (typeof receipt !== 'string' || receipt === '') return Promise.resolve();
    const body = { receipt, event };
    if (actionId) body.actionId = actionId;
    return fetch(receiptsUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
      keepalive: true,
    }).then(
      () => undefined,
      () => undefined,
    );
  }

  /** Notification options (https://notifications.spec.whatwg.org/#dictdef-notificationoptions) from a push payload. */
  function notificationFromPayload(payload) {
    const message = payload && typeof payload === 'object' ? payload : {};
    const text = (value) => (typeof value === 'string' && value !== '' ? value : undefined);
    const options = {
      body: text(message.body),
      icon: text(message.icon),
      image: text(message.image),
      tag: text(message.tag),
      // Where a click goes, and the caller's own data (notification.data.data) for a site's own handlers.
      data: {
        clarion: true,
        url: text(message.url) ?? null,
        data: message.data && typeof message.data === 'object' ? message.data : {},
        receipt: text(message.clarionReceipt) ?? null,
      },
    };
    // Action buttons: a click on one opens its own url, if it has one (data.actionUrls), and reports its id.
    const actions = Array.isArray(message.actions)
      ? message.actions.filter((action) => action && text(action.action) && text(action.title))
      : [];
    if (actions.length > 0) options.actions = actions.map((action) => ({ action: action.action, title: action.title }));
    const actionUrls = Object.entries(
      message.actionUrls && typeof message.actionUrls === 'object' ? message.actionUrls : {},
    ).filter(([, url]) => text(url));
    if (actionUrls.length > 0) options.data.actionUrls = Object.fromEntries(actionUrls);
    // Without renotify a notification that replaces one with the same tag does so silently: right for a silent Live
    // Activity update, and for a repeated delivery of the same notification. A Live Activity event that carries an
    // alert (data.alerting) alerts again; so does a payload that asks with renotify.
    const liveActivity = options.data.data.clarion === 'live_activity';
    if (options.tag && (message.renotify === true || (liveActivity && options.data.data.alerting === 'true')))
      options.renotify = true;
    if (message.silent === true) options.silent = true;
    // A timer's end is the notification's time (browsers that show it then say "in 12 minutes").
    const endsAt =
      liveActivity && typeof options.data.data.endsAt === 'string' ? Date.parse(options.data.data.endsAt) : NaN;
    if (typeof message.timestamp === 'number') options.timestamp = message.timestamp;
    else if (!Number.isNaN(endsAt)) options.timestamp = endsAt;
    for (const key of Object.keys(options)) if (options[key] === undefined) delete options[key];
    return { title: text(message.title) ?? '', options };
  }

  /**
   * A declarative message (https://w3c.github.io/push-api/#declarative-push-message) in the flat form the rest of this
   * worker reads: its navigate is the url unless notification.data says the notification has none (url: null), and
   * then a click opens this worker's scope. Anything else is returned as it is.
   */
  function flatMessage(payload) {
    const declarative = payload && payload.web_push === 8030 && payload.notification;
    if (!declarative || typeof declarative !== 'object') return payload;
    const data = declarative.data && typeof declarative.data === 'object' ? declarative.data : {};
    return {
      title: declarative.title,
      body: declarative.body,
      url: data.url === null ? null : declarative.navigate,
      image: declarative.image,
      icon: declarative.icon,
      tag: declarative.tag,
      data: data.data,
      badge: payload.app_badge,
      renotify: declarative.renotify,
      silent: declarative.silent,
      timestamp: declarative.timestamp,
      actions: declarative.actions,
      actionUrls: data.actionUrls,
      clarionReceipt: payload.clarionReceipt,
    };
  }

  /** The push's JSON; a message that is not JSON is shown as its text, so nothing sent is lost. */
  function readPayload(event) {
    if (!event.data) return {};
    try {
      return event.data.json();
    } catch {
      return { body: event.data.text() };
    }
  }

  /** A payload's `badge` is a count for the app badge (not the notification's badge image), where the browser has one. */
  function setAppBadge(payload) {
    const badge = payload && payload.badge;
    if (typeof badge !== 'number' || !self.navigator || typeof self.navigator.setAppBadge !== 'function')
      return Promise.resolve();
    return self.navigator.setAppBadge(badge).catch(() => undefined);
  }

  function handlePush(event) {
    const payload = flatMessage(readPayload(event));
    const { title, options } = notificationFromPayload(payload);
    // Every push must show a notification (userVisibleOnly), inside waitUntil so the worker lives until it is shown.
    event.waitUntil(
      Promise.all([
        self.registration.showNotification(title, options).then(() => reportReceipt(options.data.receipt, 'received')),
        setAppBadge(payload),
      ]),
    );
  }

  /** Focuses a window already showing `url` (ignoring its #fragment), else opens one. */
  async function focusOrOpen(url) {
    const target = new URL(url, self.location.href);
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return null;
    const withoutHash = (href) => href.split('#')[0];
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const open = windows.find((client) => withoutHash(client.url) === withoutHash(target.href));
    if (open && typeof open.focus === 'function') return open.focus();
    return self.clients.openWindow(target.href);
  }

  function handleNotificationClick(event) {
    event.notification.close();
    const data = event.notification.data || {};
    if (event.action) {
      // An action button: its own url if it has one; else nothing opens, and the report (Clarion's
      // notification.action webhook) is what acts on it, as for an "Approve" the caller's server carries out.
      const actionUrl = data.actionUrls && data.actionUrls[event.action];
      const report = reportReceipt(data.receipt, 'action', event.action);
      event.waitUntil(Promise.all([typeof actionUrl === 'string' ? focusOrOpen(actionUrl) : null, report]));
      return;
    }
    // A notification without a url opens the service worker's own scope (for a join page: the page itself).
    const url = typeof data.url === 'string' && data.url !== '' ? data.url : self.registration.scope;
    event.waitUntil(Promise.all([focusOrOpen(url), reportReceipt(data.receipt, 'opened')]));
  }

  /** Closed without a click: the person dismissed it (a click closes it too, but then no close event fires). */
  function handleNotificationClose(event) {
    const data = event.notification.data || {};
    event.waitUntil(reportReceipt(data.receipt, 'dismissed'));
  }

  self.ClarionServiceWorker = {
    handlePush,
    handleNotificationClick,
    handleNotificationClose,
    notificationFromPayload,
    focusOrOpen,
  };
  if (self.ClarionServiceWorkerManualEvents !== true) {
    self.addEventListener('push', handlePush);
    self.addEventListener('notificationclick', handleNotificationClick);
    self.addEventListener('notificationclose', handleNotificationClose);
  }
})();
