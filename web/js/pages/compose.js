import { api } from '../api.js';
import { append, h } from '../dom.js';
import { notice } from '../feedback.js';
import { field, onSubmit, radioGroup } from '../forms.js';
import { pageHeading, refreshQuotaBanner } from '../layout.js';
import { href } from '../router.js';
import { allChannels } from './channels.js';
import { actionOptions, deliveryOptions, displayOptions, languageOptions } from './compose-options.js';

/** Compose and send (or schedule) a notification with POST /api/v1/notifications, as a backend would. */
export async function composePage({ container, query, navigate }) {
  pageHeading(container, 'New notification');
  const channels = await allChannels();
  if (channels.length === 0) {
    append(
      container,
      notice(
        'info',
        h(
          'p',
          {},
          'There is no channel to send to yet. ',
          h('a', { href: href('/channels') }, 'Create a channel first.'),
        ),
      ),
    );
    return;
  }
  const chosen = query.get('channel');
  const problems = h('div');
  const when = h('input', {
    type: 'datetime-local',
    id: 'send-at',
    name: 'sendAt',
    'aria-describedby': 'send-at-hint send-at-error',
  });
  const scheduleBox = h(
    'div',
    { class: 'field', hidden: true },
    h('label', { for: 'send-at' }, 'Send at'),
    h(
      'p',
      { id: 'send-at-hint', class: 'hint' },
      `In your time zone (${Intl.DateTimeFormat().resolvedOptions().timeZone}). At most 365 days ahead.`,
    ),
    when,
    h('p', { id: 'send-at-error', class: 'field-error', hidden: true }),
  );
  const audience = audiencePicker(query);
  const delivery = deliveryOptions();
  const display = displayOptions();
  const languages = languageOptions();
  const buttons = actionOptions();
  const scheduled = h('input', { type: 'checkbox', id: 'schedule', name: 'schedule' });
  scheduled.addEventListener('change', () => {
    scheduleBox.hidden = !scheduled.checked;
    when.required = scheduled.checked;
  });
  const form = h(
    'form',
    { class: 'card', novalidate: true },
    problems,
    field({
      label: 'Channel',
      control: 'select',
      input: { name: 'channelCode', required: true },
      options: channels.map((channel) => ({
        value: channel.code,
        label: `${channel.code} (${channel.subscriberCount.total} subscribers)`,
        selected: channel.code === chosen,
      })),
    }),
    audience.element,
    field({
      label: 'Title',
      hint: 'A notification needs a title, a body or both.',
      input: { name: 'title', maxlength: '256' },
    }),
    field({ label: 'Body', control: 'textarea', input: { name: 'body', maxlength: '4000' } }),
    field({
      label: 'Link',
      hint: 'Opened when the notification is tapped: an absolute http(s) address.',
      input: { name: 'url', type: 'url', placeholder: 'https://example.com/welcome' },
    }),
    delivery.element,
    display.element,
    languages.element,
    buttons.element,
    h('div', { class: 'choice' }, scheduled, h('label', { for: 'schedule' }, 'Schedule for later')),
    scheduleBox,
    h(
      'p',
      { class: 'muted' },
      'Each notification counts one against this month’s quota, however many subscribers it reaches. A canceled scheduled one is refunded.',
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Send notification')),
  );
  onSubmit(form, problems, async (data) => {
    const values = Object.fromEntries(data);
    const body = { channelCode: values.channelCode };
    for (const name of ['title', 'body', 'url'])
      if (String(values[name] ?? '').trim()) body[name] = String(values[name]).trim();
    Object.assign(
      body,
      audience.read(values),
      delivery.read(data),
      display.read(data),
      languages.read(data),
      buttons.read(data),
    );
    if (scheduled.checked && values.sendAt) {
      // datetime-local is the reader's wall-clock time; toISOString() turns it into the UTC instant the API wants.
      body.sendAt = new Date(String(values.sendAt)).toISOString();
    }
    const notification = await api.post('/api/v1/notifications', body);
    refreshQuotaBanner();
    navigate(`/notifications/${notification.id}`);
  });
  append(container, form);
}

/** Splits what a person typed into a list: one per line or separated by commas, blanks dropped. */
function listOf(text) {
  return String(text ?? '')
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter(Boolean);
}

/**
 * Whom in the channel to send to (docs/api.md, "Targeting"): everyone, the devices of some users (externalIds), or
 * the subscribers with some tags (all of them or any of them). `?externalId=` preselects one user.
 */
function audiencePicker(query) {
  const preset = query.get('externalId');
  const usersBox = h(
    'div',
    { hidden: !preset },
    field({
      label: 'External ids',
      control: 'textarea',
      hint: 'Your user ids, one per line or separated by commas (up to 10,000).',
      input: { name: 'externalIds', required: true, value: preset ?? '' },
    }),
  );
  const tagsBox = h(
    'div',
    { hidden: true },
    field({
      label: 'Tags',
      hint: 'Separated by commas, as set with PATCH /api/v1/subscribers/{id}.',
      input: { name: 'tags', required: true },
    }),
    radioGroup({
      legend: 'Match',
      name: 'tagMatch',
      value: 'any',
      choices: [
        { value: 'any', label: 'Any of these tags' },
        { value: 'all', label: 'All of these tags' },
      ],
    }),
  );
  const choice = radioGroup({
    legend: 'Audience',
    name: 'audience',
    value: preset ? 'users' : 'channel',
    choices: [
      { value: 'channel', label: 'All subscribers' },
      { value: 'users', label: 'Some users', description: 'the devices registered with their external ids' },
      { value: 'tags', label: 'Tagged subscribers' },
    ],
  });
  choice.addEventListener('change', () => {
    const picked = new FormData(choice.closest('form') ?? undefined).get('audience');
    usersBox.hidden = picked !== 'users';
    tagsBox.hidden = picked !== 'tags';
  });
  return {
    element: h('div', { class: 'audience' }, choice, usersBox, tagsBox),
    read(values) {
      if (values.audience === 'users') return { externalIds: listOf(values.externalIds) };
      if (values.audience === 'tags')
        return { tags: { [values.tagMatch === 'all' ? 'all' : 'any']: listOf(values.tags) } };
      return {};
    },
  };
}
