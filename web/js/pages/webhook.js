import { api, withQuery } from '../api.js';
import { copyButton } from '../copy-button.js';
import { append, h, replace, table, uid } from '../dom.js';
import { announce, askDialog, showProblem } from '../feedback.js';
import { formatTime } from '../format.js';
import { field } from '../forms.js';
import { pageHeading } from '../layout.js';
import { href } from '../router.js';

/** One endpoint: its settings, a test message, its signing secret on request, and the delivery log with replay. */
export async function webhookPage({ container, params, navigate }) {
  const heading = pageHeading(container, 'Webhook endpoint');
  const problems = h('div');
  const secretSlot = h('div');
  const body = h('div');
  append(container, h('p', {}, h('a', { href: href('/webhooks') }, '← All endpoints')), problems, secretSlot, body);
  const context = { params, problems, secretSlot, navigate, reload: null };
  context.reload = async () => {
    const webhook = await api.get(`/api/v1/webhooks/${encodeURIComponent(params.id)}`);
    heading.textContent = webhook.description || webhook.url;
    document.title = `${heading.textContent} · Clarion`;
    replace(body, settings(webhook, context), await deliveryLog(webhook, context));
  };
  await context.reload();
}

function settings(webhook, context) {
  const run = (action) => () => action().catch((problem) => showProblem(context.problems, problem));
  return h(
    'div',
    {},
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'URL'),
      h('dd', {}, h('code', {}, webhook.url)),
      h('dt', {}, 'Events'),
      h('dd', {}, webhook.events.includes('*') ? 'All events' : webhook.events.join(', ')),
      h('dt', {}, 'Status'),
      h('dd', {}, webhook.status === 'enabled' ? 'Enabled' : `Disabled: ${webhook.disabledReason ?? ''}`),
      webhook.failingSince ? [h('dt', {}, 'Failing since'), h('dd', {}, formatTime(webhook.failingSince))] : null,
      webhook.previousSecretExpiresAt
        ? [h('dt', {}, 'Old secret signs until'), h('dd', {}, formatTime(webhook.previousSecretExpiresAt))]
        : null,
      h('dt', {}, 'Created'),
      h('dd', {}, formatTime(webhook.createdAt)),
    ),
    h(
      'div',
      { class: 'actions' },
      webhook.status === 'enabled'
        ? h(
            'button',
            {
              type: 'button',
              onclick: run(async () => {
                await api.post(`/api/v1/webhooks/${webhook.id}/test`);
                announce('Test message queued.');
                await context.reload();
              }),
            },
            'Send a test message',
          )
        : h(
            'button',
            {
              type: 'button',
              class: 'primary',
              onclick: run(async () => {
                await api.post(`/api/v1/webhooks/${webhook.id}/enable`);
                announce('Endpoint enabled.');
                await context.reload();
              }),
            },
            'Enable again',
          ),
      h(
        'button',
        {
          type: 'button',
          onclick: run(async () => {
            const secret = await api.get(`/api/v1/webhooks/${webhook.id}/secret`);
            const panel = secretReveal(secret.secret, 'Signing secret');
            replace(context.secretSlot, panel);
            panel.querySelector('h2').focus();
          }),
        },
        'Show signing secret',
      ),
      h('button', { type: 'button', onclick: run(() => rotateSecret(webhook, context)) }, 'Rotate signing secret'),
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          onclick: run(async () => {
            const answer = await askDialog({
              title: 'Delete this endpoint?',
              body: h('p', {}, 'Its delivery log goes with it, and queued attempts are dropped.'),
              confirmLabel: 'Delete endpoint',
              danger: true,
            });
            if (!answer.confirmed) return;
            await api.delete(`/api/v1/webhooks/${webhook.id}`);
            context.navigate('/webhooks');
          }),
        },
        'Delete endpoint',
      ),
    ),
  );
}

async function deliveryLog(webhook, context) {
  const section = h('section', { 'aria-labelledby': 'delivery-log' }, h('h2', { id: 'delivery-log' }, 'Delivery log'));
  const page = await api.list(withQuery(`/api/v1/webhooks/${webhook.id}/messages`, { limit: 50 }));
  if (page.data.length === 0)
    return append(section, h('p', {}, 'No messages yet. Send a test message to try the endpoint.'));
  return append(
    section,
    table(
      'Messages, newest first',
      ['Event', 'Status', 'Attempts', 'Created', 'Next attempt', 'Actions'],
      page.data.map((message) => [
        h('span', {}, h('code', {}, message.eventType), ' ', h('span', { class: 'muted' }, message.id)),
        message.status,
        attempts(message),
        formatTime(message.createdAt),
        formatTime(message.nextAttemptAt),
        h(
          'button',
          { type: 'button', onclick: () => replay(message, context) },
          'Replay',
          h('span', { class: 'visually-hidden' }, ` ${message.id}`),
        ),
      ]),
      { rowHeaders: true },
    ),
    page.nextCursor ? h('p', { class: 'muted' }, 'Showing the latest 50 messages.') : null,
  );
}

function attempts(message) {
  if (message.attempts.length === 0) return '0';
  return h(
    'details',
    {},
    h('summary', {}, `${message.attemptCount}`),
    h(
      'ol',
      {},
      message.attempts.map((attempt) =>
        h(
          'li',
          {},
          `${attempt.statusCode ?? 'no answer'} in ${attempt.durationMs} ms`,
          attempt.error ? ` — ${attempt.error}` : '',
          ' (',
          formatTime(attempt.attemptedAt),
          ')',
        ),
      ),
    ),
  );
}

async function replay(message, context) {
  try {
    await api.post(`/api/v1/webhook-messages/${encodeURIComponent(message.id)}/retry`);
    announce('Message replayed.');
    await context.reload();
  } catch (problem) {
    showProblem(context.problems, problem);
  }
}

/** Grace periods offered on rotation (docs/webhooks.md, "Secret rotation": 0 to 7 days, 24 hours by default). */
const graceChoices = [
  { value: '86400', label: '24 hours (the default)' },
  { value: '3600', label: '1 hour' },
  { value: '604800', label: '7 days (the longest allowed)' },
  { value: '0', label: 'None: the old secret stops at once (after a leak)' },
];

/** A new signing secret, the old one signing beside it for the grace period chosen; the new one is shown at once. */
async function rotateSecret(webhook, context) {
  const answer = await askDialog({
    title: 'Rotate this endpoint’s signing secret?',
    body: [
      h(
        'p',
        {},
        'A new secret signs every message from now on. During the grace period each message carries both signatures, so your receiver keeps verifying while you deploy the new secret.',
      ),
      field({
        label: 'Old secret keeps signing for',
        control: 'select',
        input: { name: 'graceSeconds' },
        options: graceChoices,
      }),
    ],
    confirmLabel: 'Rotate secret',
  });
  if (!answer.confirmed) return;
  const rotated = await api.post(`/api/v1/webhooks/${webhook.id}/rotate-secret`, {
    graceSeconds: Number(answer.values.graceSeconds ?? 86400),
  });
  const panel = secretReveal(rotated.secret, 'New signing secret');
  replace(context.secretSlot, panel);
  panel.querySelector('h2').focus();
  announce('Signing secret rotated. Copy the new one to your receiver.');
  await context.reload();
}

/** Shows a webhook signing secret with a copy button (it can be shown again from the endpoint's page). */
export function secretReveal(secret, title, onDone = () => {}) {
  const inputId = uid('secret');
  const input = h('input', {
    id: inputId,
    class: 'key-value',
    type: 'text',
    readonly: true,
    value: secret,
    spellcheck: 'false',
    autocomplete: 'off',
  });
  const panel = h(
    'section',
    { class: 'card reveal', 'aria-labelledby': `${inputId}-title` },
    h('h2', { id: `${inputId}-title`, tabindex: '-1' }, title),
    h(
      'p',
      {},
      'Verify each message’s webhook-signature with this secret (any Standard Webhooks library does it). Keep it on your server.',
    ),
    h('label', { for: inputId }, 'Signing secret'),
    h('div', { class: 'copy-row' }, input, copyButton(secret, 'Copy secret')),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          onclick: () => {
            input.value = '';
            panel.remove();
            onDone();
          },
        },
        'Done',
      ),
    ),
  );
  return panel;
}
