import { api } from '../api.js';
import { append, h } from '../dom.js';
import { notice, showProblem } from '../feedback.js';
import { clearFieldErrors, field, markFieldErrors, whileBusy } from '../forms.js';
import { pageHeading, refreshQuotaBanner } from '../layout.js';
import { href } from '../router.js';
import { allChannels } from './channels.js';

/** Compose and send (or schedule) a notification with POST /api/v1/notifications, as a backend would. */
export async function composePage({ container, query, navigate }) {
  pageHeading(container, 'New notification');
  const channels = await allChannels();
  if (channels.length === 0) {
    append(container, notice('info', h('p', {}, 'There is no channel to send to yet. ', h('a', { href: href('/channels') }, 'Create a channel first.'))));
    return;
  }
  const chosen = query.get('channel');
  const problems = h('div');
  const when = h('input', { type: 'datetime-local', id: 'send-at', name: 'sendAt', 'aria-describedby': 'send-at-hint send-at-error' });
  const scheduleBox = h(
    'div',
    { class: 'field', hidden: true },
    h('label', { for: 'send-at' }, 'Send at'),
    h('p', { id: 'send-at-hint', class: 'hint' }, `In your time zone (${Intl.DateTimeFormat().resolvedOptions().timeZone}). At most 365 days ahead.`),
    when,
    h('p', { id: 'send-at-error', class: 'field-error', hidden: true }),
  );
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
      options: channels.map((channel) => ({ value: channel.code, label: `${channel.code} (${channel.subscriberCount.total} subscribers)`, selected: channel.code === chosen })),
    }),
    field({ label: 'Title', hint: 'A notification needs a title, a body or both.', input: { name: 'title', maxlength: '256' } }),
    field({ label: 'Body', control: 'textarea', input: { name: 'body', maxlength: '4000' } }),
    field({ label: 'Link', hint: 'Opened when the notification is tapped: an absolute http(s) address.', input: { name: 'url', type: 'url', placeholder: 'https://example.com/welcome' } }),
    h('div', { class: 'choice' }, scheduled, h('label', { for: 'schedule' }, 'Schedule for later')),
    scheduleBox,
    h('p', { class: 'muted' }, 'Each notification counts one against this month’s quota, however many subscribers it reaches. A canceled scheduled one is refunded.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Send notification')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    whileBusy(form, async () => {
      showProblem(problems, null);
      clearFieldErrors(form);
      const values = Object.fromEntries(new FormData(form));
      const body = { channelCode: values.channelCode };
      for (const name of ['title', 'body', 'url']) if (String(values[name] ?? '').trim()) body[name] = String(values[name]).trim();
      if (scheduled.checked && values.sendAt) {
        // datetime-local is the reader's wall-clock time; toISOString() turns it into the UTC instant the API wants.
        body.sendAt = new Date(String(values.sendAt)).toISOString();
      }
      try {
        const notification = await api.post('/api/v1/notifications', body);
        refreshQuotaBanner();
        navigate(`/notifications/${notification.id}`);
      } catch (problem) {
        showProblem(problems, problem);
        markFieldErrors(form, problem);
      }
    });
  });
  append(container, form);
}
