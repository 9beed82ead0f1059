import { api, ApiProblem } from './api.js';
import { h, replace } from './dom.js';
import { formatNumber, formatPercent, formatTimeText } from './format.js';
import { announce, problemBox } from './feedback.js';
import { href, navigate } from './router.js';
import { currentSession, sessionState, setFlash, setSessionState } from './session.js';

/** The main navigation. */
const sections = [
  { path: '/overview', label: 'Overview' },
  { path: '/channels', label: 'Channels' },
  { path: '/apps', label: 'Apps' },
  { path: '/subscribers', label: 'Subscribers' },
  { path: '/keys', label: 'API keys' },
  { path: '/notifications', label: 'Notifications' },
  { path: '/live-activities', label: 'Live Activities' },
  { path: '/webhooks', label: 'Webhooks' },
  { path: '/usage', label: 'Usage' },
];

/** Quota share from which the banner warns (docs/dashboard.md, Usage: from 80 % of the quota and at the limit). */
export const QUOTA_WARNING_SHARE = 0.8;

/** Renders the header for the current session and path; signed out, only the product name. */
export function renderHeader(header, path) {
  const session = currentSession();
  if (!session) {
    replace(header, h('div', { class: 'bar' }, h('span', { class: 'brand' }, 'Clarion')));
    return;
  }
  replace(
    header,
    h(
      'div',
      { class: 'bar' },
      h('a', { class: 'brand', href: href('/channels') }, 'Clarion'),
      accountSwitcher(session),
      h('span', { class: 'who muted' }, session.user.email),
      h('button', { type: 'button', class: 'link-button', onclick: signOut }, 'Sign out'),
    ),
    h(
      'nav',
      { 'aria-label': 'Main' },
      h(
        'ul',
        {},
        sections.map((section) =>
          h(
            'li',
            {},
            h(
              'a',
              {
                href: href(section.path),
                'aria-current': path === section.path || path.startsWith(`${section.path}/`) ? 'page' : null,
              },
              section.label,
            ),
          ),
        ),
        h('li', {}, h('a', { href: '/docs', target: '_blank', rel: 'noopener' }, 'API docs')),
      ),
    ),
    h('div', { id: 'quota-banner' }),
  );
}

function accountSwitcher(session) {
  if (session.accounts.length < 2) return h('span', { class: 'account-name' }, session.account.name);
  const select = h(
    'select',
    { id: 'account-switcher', onchange: () => switchAccount(select.value) },
    session.accounts.map((account) =>
      h(
        'option',
        { value: account.id, selected: account.id === session.account.id },
        `${account.name} (${account.plan})`,
      ),
    ),
  );
  return h('span', { class: 'account-switcher' }, h('label', { for: 'account-switcher' }, 'Account'), select);
}

async function switchAccount(accountId) {
  try {
    setSessionState(await api.post('/api/v1/auth/switch-account', { accountId }));
    const name = currentSession().account.name;
    setFlash('success', `Switched to ${name}.`);
    announce(`Switched to ${name}.`);
    navigate('/channels');
  } catch (problem) {
    showPageProblem(problem);
  }
}

async function signOut() {
  try {
    setSessionState(await api.post('/api/v1/auth/signout'));
  } catch (problem) {
    // Already signed out elsewhere (401): the outcome is the same.
    if (!(problem instanceof ApiProblem) || problem.status !== 401) return showPageProblem(problem);
    setSessionState({ signup: sessionState().signup, session: null });
  }
  setFlash('success', 'You are signed out.');
  navigate('/signin');
}

function showPageProblem(problem) {
  const main = document.getElementById('main');
  main?.prepend(problemBox(problem));
}

/**
 * The banner near (≥ 80 %) and at the monthly limit, on every signed-in page. Reads GET /api/v1/usage; a failure
 * here is not worth interrupting the page for, so it is silent.
 */
export async function refreshQuotaBanner() {
  const slot = document.getElementById('quota-banner');
  if (!slot || !currentSession()) return;
  let usage;
  try {
    usage = await api.get('/api/v1/usage');
  } catch {
    return;
  }
  replace(slot, quotaBanner(usage));
}

export function quotaBanner(usage) {
  const share = usage.limit > 0 ? usage.used / usage.limit : 1;
  if (share < QUOTA_WARNING_SHARE) return null;
  const atLimit = usage.used >= usage.limit;
  return h(
    'div',
    { class: `notice ${atLimit ? 'notice-error' : 'notice-warning'} quota-banner`, role: 'status' },
    h(
      'p',
      {},
      h(
        'strong',
        {},
        atLimit
          ? "This month's quota is used up."
          : `${formatPercent(usage.used, usage.limit)} of this month's quota is used.`,
      ),
      ' ',
      atLimit
        ? `New notifications are refused (429 quota_exceeded) until ${formatTimeText(usage.resetsAt)}.`
        : `${formatNumber(usage.remaining)} of ${formatNumber(usage.limit)} notifications left until ${formatTimeText(usage.resetsAt)}.`,
      ' ',
      h('a', { href: href('/usage') }, 'See usage and plans'),
    ),
  );
}

/** The page's heading: the document title follows it, and focus moves to it after navigation. */
export function pageHeading(container, text, ...extra) {
  document.title = `${text} · Clarion`;
  const heading = h('h1', { tabindex: '-1' }, text);
  container.append(h('div', { class: 'page-heading' }, heading, ...extra));
  return heading;
}
