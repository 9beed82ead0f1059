import { api, withQuery } from '../api.js';
import { append, h, table } from '../dom.js';
import { showProblem } from '../feedback.js';
import { formatNumber, formatPercent, formatTime } from '../format.js';
import { field } from '../forms.js';
import { pageHeading } from '../layout.js';
import { href } from '../router.js';
import { allChannels } from './channels.js';

export const statusLabels = {
  scheduled: 'Scheduled',
  queued: 'Queued',
  sending: 'Sending',
  sent: 'Sent',
  canceled: 'Canceled',
  failed: 'Failed',
};

/**
 * A notification's status as a badge. "Sent" is green only when nothing failed: a send with failures says how many
 * (in amber), and a send that reached no one says so, since neither is the success a green "Sent" tells.
 */
export function statusBadge(notification) {
  const { status, stats, recipientCount } = notification;
  if (status === 'sent' && recipientCount === 0) return h('span', { class: 'badge badge-empty' }, 'Sent to no one');
  if (status === 'sent' && stats.failed > 0)
    return h('span', { class: 'badge badge-partial' }, `Sent, ${formatNumber(stats.failed)} failed`);
  return h('span', { class: `badge badge-${status}` }, statusLabels[status] ?? status);
}

export async function notificationsPage({ container, query, navigate }) {
  pageHeading(
    container,
    'Notifications',
    h('a', { class: 'button primary', href: href('/notifications/new') }, 'New notification'),
  );
  const channels = await allChannels();
  const channelCode = query.get('channel') ?? '';
  const status = query.get('status') ?? '';
  const filters = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter notifications' },
    field({
      label: 'Channel',
      control: 'select',
      input: { name: 'channel' },
      options: [
        { value: '', label: 'All channels' },
        ...channels.map((channel) => ({
          value: channel.code,
          label: channel.code,
          selected: channel.code === channelCode,
        })),
      ],
    }),
    field({
      label: 'Status',
      control: 'select',
      input: { name: 'status' },
      options: [
        { value: '', label: 'Any status' },
        ...Object.entries(statusLabels).map(([value, label]) => ({ value, label, selected: value === status })),
      ],
    }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Filter')),
  );
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(filters));
    navigate(withQuery('/notifications', { channel: values.channel, status: values.status }));
  });
  const results = h('section', { 'aria-labelledby': 'history' }, h('h2', { id: 'history' }, 'History'));
  append(container, filters, results);
  await appendPage(results, { channelCode, status }, null);
}

async function appendPage(section, filter, cursor) {
  const page = await api.list(
    withQuery('/api/v1/notifications', { channelCode: filter.channelCode, status: filter.status, limit: 25, cursor }),
  );
  if (page.data.length === 0 && cursor === null) {
    append(
      section,
      h('p', {}, 'No notifications yet. ', h('a', { href: href('/notifications/new') }, 'Send a test notification.')),
    );
    return;
  }
  append(
    section,
    table(
      cursor ? 'More notifications' : 'Notifications, newest first',
      [
        'Notification',
        'Channel',
        'Status',
        'Recipients',
        'Delivered',
        'Failed',
        'Skipped',
        'Pending',
        'Opened',
        'Created',
      ],
      page.data.map((notification) => [
        h(
          'a',
          { href: href(`/notifications/${notification.id}`) },
          notification.title ?? notification.body ?? notification.id,
        ),
        h('code', {}, notification.channelCode),
        statusBadge(notification),
        formatNumber(notification.recipientCount),
        formatNumber(notification.stats.delivered),
        formatNumber(notification.stats.failed),
        formatNumber(notification.stats.skipped),
        formatNumber(notification.stats.pending),
        // Opens as a share of the deliveries: the open rate (docs/engagement.md).
        `${formatNumber(notification.stats.opened)} (${formatPercent(notification.stats.opened, notification.stats.delivered)})`,
        formatTime(notification.createdAt),
      ]),
      { rowHeaders: true },
    ),
  );
  if (page.nextCursor) {
    const more = h('button', { type: 'button' }, 'Show older notifications');
    more.addEventListener('click', () => {
      more.remove();
      appendPage(section, filter, page.nextCursor).catch((problem) =>
        showProblem(section.appendChild(h('div')), problem),
      );
    });
    append(section, more);
  }
}
