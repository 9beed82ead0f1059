// The public join page's script (docs/web-push.md, "Join page"): one "Get notifications" button that subscribes this
// browser with the browser SDK. The page (src/http/endpoints/join/join-page-html.ts) carries what it needs in data-*
// attributes — no inline script, which the page's Content-Security-Policy forbids.
import { Clarion } from './clarion-web.js';

const root = document.getElementById('join');
const config = {
  baseUrl: window.location.origin,
  publishableKey: root.dataset.key,
  channelCode: root.dataset.channel,
  serviceWorker: root.dataset.serviceWorker,
  scope: root.dataset.scope,
};
const button = document.getElementById('subscribe');
const stop = document.getElementById('unsubscribe');
const status = document.getElementById('status');

function show(id, visible) {
  document.getElementById(id).hidden = !visible;
}

function say(text, tone = 'info') {
  status.textContent = text;
  status.dataset.tone = tone;
}

/** iPhone and iPad deliver Web Push only to a web app on the Home Screen (iOS 16.4+), never to a Safari tab. */
function needsHomeScreen() {
  const ios =
    /iPad|iPhone|iPod/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
  const standalone = navigator.standalone === true || window.matchMedia('(display-mode: standalone)').matches;
  return ios && !standalone;
}

function showSubscribed(subscribed) {
  show('subscribe', !subscribed);
  show('unsubscribe', subscribed);
}

function start() {
  if (needsHomeScreen()) {
    show('ios-steps', true);
    show('subscribe', false);
    return;
  }
  if (!Clarion.isSupported()) {
    show('unsupported', true);
    show('subscribe', false);
    return;
  }
  const subscribed = Clarion.subscriberId(config) !== null && Notification.permission === 'granted';
  showSubscribed(subscribed);
  if (subscribed) say('This browser gets notifications from this channel.', 'success');
}

button.addEventListener('click', async () => {
  button.disabled = true;
  say('Subscribing…');
  try {
    await Clarion.subscribe(config);
    showSubscribed(true);
    say('Done: this browser will get notifications from this channel.', 'success');
    stop.focus();
  } catch (error) {
    say(error.message, 'error');
  } finally {
    button.disabled = false;
  }
});

stop.addEventListener('click', async () => {
  stop.disabled = true;
  try {
    await Clarion.unsubscribe(config);
    showSubscribed(false);
    say('Stopped: this browser gets no more notifications from this channel.');
    button.focus();
  } catch (error) {
    say(error.message, 'error');
  } finally {
    stop.disabled = false;
  }
});

start();
