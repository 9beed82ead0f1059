import { api, withQuery } from '../api.js';
import { append, h, table } from '../dom.js';
import { showProblem } from '../feedback.js';
import { formatTime } from '../format.js';
import { field } from '../forms.js';
import { pageHeading } from '../layout.js';
import { href } from '../router.js';
import { allChannels } from './channels.js';

export const platformLabels = { ios: 'iOS', android: 'Android', web: 'Web' };
export const subscriberStatusLabels = { active: 'Active', unsubscribed: 'Unsubscribed' };

/**
 * Who is subscribed (GET /api/v1/subscribers): search by external id or the start of a subscriber id, filter by
 * channel, platform and status, newest first. Device tokens are never shown, only their first characters.
 */
export async function subscribersPage({ container, query, navigate }) {
  pageHeading(container, 'Subscribers');
  const channels = await allChannels();
  const search = query.get('search') ?? '';
  const filter = {
    channelCode: query.get('channel') ?? '',
    platform: query.get('platform') ?? '',
    status: query.get('status') ?? '',
  };
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Find subscribers', novalidate: true },
    field({
      label: 'Search',
      hint: 'An external id (your user id), or the start of a subscriber id (sub_…).',
      input: { name: 'search', type: 'search', value: search, autocomplete: 'off' },
    }),
    field({
      label: 'Channel',
      control: 'select',
      input: { name: 'channel' },
      options: [
        { value: '', label: 'All channels' },
        ...channels.map((channel) => ({
          value: channel.code,
          label: channel.code,
          selected: channel.code === filter.channelCode,
        })),
      ],
    }),
    field({
      label: 'Platform',
      control: 'select',
      input: { name: 'platform' },
      options: [
        { value: '', label: 'Any platform' },
        ...Object.entries(platformLabels).map(([value, label]) => ({
          value,
          label,
          selected: value === filter.platform,
        })),
      ],
    }),
    field({
      label: 'Status',
      control: 'select',
      input: { name: 'status' },
      options: [
        { value: '', label: 'Any status' },
        ...Object.entries(subscriberStatusLabels).map(([value, label]) => ({
          value,
          label,
          selected: value === filter.status,
        })),
      ],
    }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Find')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form));
    navigate(
      withQuery('/subscribers', {
        search: String(values.search ?? '').trim(),
        channel: values.channel,
        platform: values.platform,
        status: values.status,
      }),
    );
  });
  const results = h(
    'section',
    { 'aria-labelledby': 'subscriber-results' },
    h('h2', { id: 'subscriber-results' }, search ? `Results for “${search}”` : 'Newest first'),
  );
  append(container, form, results);
  const searchParams = /^sub_[0-9a-z]*$/.test(search) ? { idPrefix: search } : search ? { externalId: search } : {};
  await appendPage(results, { ...filter, ...searchParams }, null);
}

async function appendPage(section, filter, cursor) {
  const page = await api.list(withQuery('/api/v1/subscribers', { ...filter, limit: 25, cursor }));
  if (page.data.length === 0 && cursor === null) {
    append(
      section,
      h(
        'p',
        {},
        'No subscriber matches. Apps register devices with a publishable key (POST /api/v1/subscribers); browsers through a channel’s join page.',
      ),
    );
    return;
  }
  append(
    section,
    table(
      cursor ? 'More subscribers' : 'Subscribers, newest first',
      ['Subscriber', 'Channel', 'Platform', 'Status', 'External id', 'Tags', 'Registered'],
      page.data.map((subscriber) => [
        h('a', { href: href(`/subscribers/${subscriber.id}`) }, h('code', {}, subscriber.id)),
        h('code', {}, subscriber.channelCode),
        platformLabels[subscriber.platform] ?? subscriber.platform,
        subscriberStatusLabels[subscriber.status] ?? subscriber.status,
        subscriber.externalId ?? '—',
        subscriber.tags.length > 0 ? subscriber.tags.join(', ') : '—',
        formatTime(subscriber.createdAt),
      ]),
      { rowHeaders: true },
    ),
  );
  if (page.nextCursor) {
    const more = h('button', { type: 'button' }, 'Show older subscribers');
    more.addEventListener('click', () => {
      more.remove();
      appendPage(section, filter, page.nextCursor).catch((problem) =>
        showProblem(section.appendChild(h('div')), problem),
      );
    });
    append(section, more);
  }
}
