import { api, withQuery } from '../api.js';
import { append, h } from '../dom.js';
import { formatNumber, formatPercent } from '../format.js';
import { pageHeading } from '../layout.js';
import { href } from '../router.js';

/** How many recent notifications the delivery rate is taken over. */
const RECENT = 100;

/**
 * The account at a glance: sends today and this month, what is left of the quota, the delivery rate of recent
 * notifications, and the apps whose credentials a provider refused. Each figure links to the page with its details.
 */
export async function overviewPage({ container }) {
  pageHeading(container, 'Overview');
  const [usage, daily, recent, apps] = await Promise.all([
    api.get('/api/v1/usage'),
    api.get('/api/v1/usage/daily'),
    api.list(withQuery('/api/v1/notifications', { limit: RECENT })),
    api.list(withQuery('/api/v1/apps', { limit: 100 })),
  ]);
  const today = daily.days.at(-1)?.notifications ?? 0;
  const outcomes = recent.data.reduce(
    (sum, notification) => ({
      delivered: sum.delivered + notification.stats.delivered,
      failed: sum.failed + notification.stats.failed,
    }),
    { delivered: 0, failed: 0 },
  );
  const attempted = outcomes.delivered + outcomes.failed;
  const failing = apps.data.filter((app) => app.credentials.status === 'failing');
  append(
    container,
    h(
      'ul',
      { class: 'stats', 'aria-label': 'This account at a glance' },
      stat('Sent today', formatNumber(today), '/usage'),
      stat('Sent this month', formatNumber(usage.used), '/usage'),
      stat('Quota left', `${formatNumber(usage.remaining)} of ${formatNumber(usage.limit)}`, '/usage'),
      stat(
        `Delivered, last ${formatNumber(recent.data.length)} notifications`,
        attempted === 0 ? '—' : formatPercent(outcomes.delivered, attempted),
        '/notifications',
      ),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'failing-apps' },
      h('h2', { id: 'failing-apps' }, 'Apps'),
      failing.length === 0
        ? h('p', {}, apps.data.length === 0 ? 'No apps: channels use the built-in credentials.' : 'No app is failing.')
        : h(
            'ul',
            {},
            failing.map((app) =>
              h(
                'li',
                { class: 'status-failing' },
                h('a', { href: href('/apps') }, app.name),
                `: a provider refused its credentials (${app.credentials.error}).`,
              ),
            ),
          ),
    ),
  );
}

function stat(label, value, path) {
  return h(
    'li',
    {},
    h('a', { class: 'stat-value', href: href(path) }, value),
    h('span', { class: 'stat-label' }, label),
  );
}
