// The dashboard's entry point: loads the session, then renders the page the #/path names into <main>.
import { whenSessionEnds } from './api.js';
import { h, replace } from './dom.js';
import { notice, problemBox } from './feedback.js';
import { refreshQuotaBanner, renderHeader } from './layout.js';
import { appsPage } from './pages/apps.js';
import { channelPage } from './pages/channel.js';
import { channelsPage } from './pages/channels.js';
import { overviewPage } from './pages/overview.js';
import { composePage } from './pages/compose.js';
import { keysPage } from './pages/keys.js';
import { liveActivitiesPage } from './pages/live-activities.js';
import { notificationPage } from './pages/notification.js';
import { notificationsPage } from './pages/notifications.js';
import { signInPage } from './pages/sign-in.js';
import { subscriberPage } from './pages/subscriber.js';
import { subscribersPage } from './pages/subscribers.js';
import { signUpPage } from './pages/sign-up.js';
import { usagePage } from './pages/usage.js';
import { webhookPage } from './pages/webhook.js';
import { webhooksPage } from './pages/webhooks.js';
import { currentLocation, matchRoute, navigate } from './router.js';
import { currentSession, loadSession, sessionState, setFlash, setSessionState, takeFlash } from './session.js';

const routes = [
  { path: '/signin', page: signInPage, public: true },
  { path: '/signup', page: signUpPage, public: true },
  { path: '/apps', page: appsPage },
  { path: '/overview', page: overviewPage },
  { path: '/channels', page: channelsPage },
  { path: '/channels/:code', page: channelPage },
  { path: '/subscribers', page: subscribersPage },
  { path: '/subscribers/:id', page: subscriberPage },
  { path: '/keys', page: keysPage },
  { path: '/notifications', page: notificationsPage },
  { path: '/notifications/new', page: composePage },
  { path: '/notifications/:id', page: notificationPage },
  { path: '/usage', page: usagePage },
  { path: '/webhooks', page: webhooksPage },
  { path: '/webhooks/:id', page: webhookPage },
  { path: '/live-activities', page: liveActivitiesPage },
];

const main = document.getElementById('main');
const header = document.getElementById('top');
let firstRender = true;

async function render() {
  const { path, query } = currentLocation();
  const session = currentSession();
  const match = matchRoute(routes, path);
  // An instance without any account offers to create the first one (the operator's) instead of a sign-in form
  // nobody could use (GET /api/v1/auth/session says signup: 'first-account').
  const signedOutHome = sessionState().signup === 'first-account' ? '/signup' : '/signin';
  if (path === '/' || (match && !match.route.public && !session))
    return navigate(session ? '/channels' : signedOutHome, { replace: true });
  if (match && match.route.public && session) return navigate('/channels', { replace: true });

  renderHeader(header, path);
  // Each render writes into its own container: a slow page that finishes after the user moved on writes into a
  // container that is no longer on the page, instead of over the new one.
  const container = h('div', { class: 'page' });
  const flash = takeFlash();
  replace(main, flash ? notice(flash.kind, h('p', {}, flash.message)) : null, container);
  if (!match) {
    document.title = 'Not found · Clarion';
    container.append(
      h('h1', { tabindex: '-1' }, 'Page not found'),
      h('p', {}, 'There is no such page. ', h('a', { href: '#/channels' }, 'Go to your channels.')),
    );
  }
  const done = match
    ? match.route.page({ container, params: match.params, query, session, navigate })
    : Promise.resolve();
  // The heading exists as soon as the page starts; moving focus to it tells screen-reader and keyboard users
  // that the page changed (a single-page app gets no page load to do that).
  if (!firstRender) container.querySelector('h1')?.focus();
  firstRender = false;
  if (session) refreshQuotaBanner();
  try {
    await done;
  } catch (problem) {
    container.append(problemBox(problem));
  }
}

whenSessionEnds(() => {
  if (!currentSession()) return;
  setSessionState({ signup: sessionState().signup, session: null });
  setFlash('warning', 'Your session has ended; sign in again.');
  navigate('/signin');
});

// Never a blank page: whatever breaks is said on the page.
window.addEventListener('unhandledrejection', (event) => main.append(problemBox(event.reason)));
window.addEventListener('error', (event) => main.append(problemBox(event.error ?? new Error(event.message))));

document.querySelector('.skip-link')?.addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

async function start() {
  try {
    await loadSession();
  } catch (problem) {
    renderHeader(header, '/');
    replace(
      main,
      h('h1', {}, 'The dashboard could not start'),
      problemBox(problem),
      h('p', {}, h('button', { type: 'button', onclick: () => window.location.reload() }, 'Try again')),
    );
    return;
  }
  window.addEventListener('hashchange', render);
  await render();
}

start();
