import { api, withQuery } from '../api.js';
import { append, h, replace, table, uid } from '../dom.js';
import { announce } from '../feedback.js';
import { formatTime } from '../format.js';
import { field, onSubmit, radioGroup } from '../forms.js';
import { pageHeading } from '../layout.js';
import { href } from '../router.js';
import { secretReveal } from './webhook.js';

/** The event types of docs/design.md 2.6 (src/webhooks/webhook-events.ts), with what each reports. */
export const eventTypes = [
  ['subscriber.created', 'a device or browser joined a channel'],
  ['subscriber.unsubscribed', 'one left (asked to, or its token died)'],
  ['notification.delivered', 'a notification’s fan-out finished, with counts'],
  ['delivery.failed', 'pushes that failed for good, in batches'],
  ['live_activity.started', 'a Live Activity started'],
  ['live_activity.updated', 'a Live Activity changed'],
  ['live_activity.ended', 'a Live Activity ended'],
  ['app.credentials_failed', 'a provider refused an app’s credentials'],
];

export async function webhooksPage({ container, navigate }) {
  pageHeading(container, 'Webhooks');
  const revealSlot = h('div');
  const list = h('section', { 'aria-labelledby': 'webhook-list' }, h('h2', { id: 'webhook-list' }, 'Endpoints'));
  append(
    container,
    h(
      'p',
      { class: 'lead' },
      'Clarion POSTs events to your endpoints, signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature headers). Failed deliveries are retried for about three days; every attempt is logged and can be replayed.',
    ),
    revealSlot,
    createWebhookForm(async (created) => {
      const panel = secretReveal(created.secret, `Endpoint created: its signing secret`, () =>
        navigate(`/webhooks/${created.id}`),
      );
      replace(revealSlot, panel);
      panel.querySelector('h2').focus();
      announce('Webhook endpoint created.');
      replace(list, h('h2', { id: 'webhook-list' }, 'Endpoints'));
      await renderList(list);
    }),
    list,
  );
  await renderList(list);
}

async function renderList(section) {
  const page = await api.list(withQuery('/api/v1/webhooks', { limit: 100 }));
  if (page.data.length === 0) {
    append(section, h('p', {}, 'No endpoints yet.'));
    return;
  }
  append(
    section,
    table(
      'Webhook endpoints',
      ['Endpoint', 'Events', 'Status', 'Created'],
      page.data.map((webhook) => [
        h(
          'a',
          { href: href(`/webhooks/${webhook.id}`) },
          webhook.description || webhook.url,
          webhook.description ? h('span', { class: 'muted' }, ` ${webhook.url}`) : null,
        ),
        webhook.events.includes('*') ? 'All events' : webhook.events.join(', '),
        webhook.status === 'enabled'
          ? webhook.failingSince
            ? h('span', {}, 'Failing since ', formatTime(webhook.failingSince))
            : 'Enabled'
          : `Disabled: ${webhook.disabledReason ?? ''}`,
        formatTime(webhook.createdAt),
      ]),
      { rowHeaders: true },
    ),
  );
}

function createWebhookForm(onCreated) {
  const problems = h('div');
  const picks = h(
    'fieldset',
    { class: 'channel-picks', hidden: true },
    h('legend', {}, 'Events to send'),
    eventTypes.map(([type, what]) => {
      const id = uid('event');
      return h(
        'div',
        { class: 'choice' },
        h('input', { type: 'checkbox', id, name: 'events', value: type }),
        h('label', { for: id }, h('code', {}, type), h('span', { class: 'hint' }, ` — ${what}`)),
      );
    }),
  );
  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-labelledby': 'create-webhook' },
    h('h2', { id: 'create-webhook' }, 'Add an endpoint'),
    problems,
    field({
      label: 'Endpoint URL',
      hint: 'An http(s) address of your server. Private and local addresses are refused unless the operator allows them.',
      input: { name: 'url', type: 'url', required: true, placeholder: 'https://example.com/webhooks/clarion' },
    }),
    field({ label: 'Description', input: { name: 'description', maxlength: '500' } }),
    radioGroup({
      legend: 'Events',
      name: 'which',
      value: 'all',
      choices: [
        { value: 'all', label: 'All events', description: 'including types added in later versions.' },
        { value: 'chosen', label: 'Chosen events only' },
      ],
    }),
    picks,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Add endpoint')),
  );
  form.addEventListener('change', () => {
    picks.hidden = form.elements.namedItem('which').value !== 'chosen';
  });
  onSubmit(form, problems, async (data) => {
    const body = { url: String(data.get('url')).trim() };
    if (String(data.get('description')).trim()) body.description = String(data.get('description')).trim();
    body.events = data.get('which') === 'chosen' ? data.getAll('events') : ['*'];
    const created = await api.post('/api/v1/webhooks', body);
    form.reset();
    picks.hidden = true;
    await onCreated(created);
  });
  return form;
}
