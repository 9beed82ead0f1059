import { api } from '../api.js';
import { append, h, replace } from '../dom.js';
import { announce, askDialog, showProblem } from '../feedback.js';
import { formatTime } from '../format.js';
import { pageHeading, refreshQuotaBanner } from '../layout.js';
import { href } from '../router.js';
import { platformLabels, subscriberStatusLabels } from './subscribers.js';

/**
 * One subscriber (GET /api/v1/subscribers/{id}): its details, when a push last reached it, its recent failed pushes, the other devices of the same
 * person, a test notification to this device only (POST /notifications with subscriberIds), and unsubscribing it.
 */
export async function subscriberPage({ container, params, navigate }) {
  const heading = pageHeading(container, 'Subscriber');
  const problems = h('div');
  const body = h('div');
  append(container, h('p', {}, h('a', { href: href('/subscribers') }, '← All subscribers')), problems, body);
  const show = async () => {
    const subscriber = await api.get(`/api/v1/subscribers/${encodeURIComponent(params.id)}`);
    heading.textContent = `Subscriber ${subscriber.id}`;
    document.title = `${heading.textContent} · Clarion`;
    replace(
      body,
      details(subscriber),
      recentFailures(subscriber),
      actions(subscriber, { problems, reload: show, navigate }),
      await otherDevices(subscriber),
    );
  };
  await show();
}

function details(subscriber) {
  return h(
    'dl',
    { class: 'facts' },
    h('dt', {}, 'Channel'),
    h(
      'dd',
      {},
      h(
        'a',
        { href: href(`/channels/${encodeURIComponent(subscriber.channelCode)}`) },
        h('code', {}, subscriber.channelCode),
      ),
    ),
    h('dt', {}, 'Platform'),
    h('dd', {}, platformLabels[subscriber.platform] ?? subscriber.platform),
    h('dt', {}, 'Status'),
    h(
      'dd',
      {},
      subscriberStatusLabels[subscriber.status] ?? subscriber.status,
      subscriber.unsubscribeReason ? ` (${subscriber.unsubscribeReason})` : null,
    ),
    h('dt', {}, 'External id'),
    h('dd', {}, subscriber.externalId ?? '—'),
    h('dt', {}, 'Tags'),
    h('dd', {}, subscriber.tags.length > 0 ? subscriber.tags.join(', ') : '—'),
    h('dt', {}, 'Time zone'),
    h('dd', {}, subscriber.timezone ?? '—'),
    h('dt', {}, 'Locale'),
    h('dd', {}, subscriber.locale ?? '—'),
    h('dt', {}, 'Token'),
    h('dd', {}, h('code', {}, subscriber.tokenPrefix), ' (only its start is ever shown)'),
    h('dt', {}, 'Registered'),
    h('dd', {}, formatTime(subscriber.createdAt)),
    h('dt', {}, 'Last delivered'),
    h('dd', {}, formatTime(subscriber.lastDeliveredAt, 'Never')),
  );
}

/** Its latest failed pushes (at most 10, newest first), each linking to its notification. */
function recentFailures(subscriber) {
  const failures = subscriber.recentFailures ?? [];
  return h(
    'section',
    { 'aria-labelledby': 'recent-failures' },
    h('h2', { id: 'recent-failures' }, 'Recent failed pushes'),
    failures.length === 0
      ? h('p', {}, 'None.')
      : h(
          'ul',
          {},
          failures.map((failure) =>
            h(
              'li',
              {},
              h('a', { href: href(`/notifications/${encodeURIComponent(failure.notificationId)}`) }, failure.reason),
              ' on ',
              formatTime(failure.at),
            ),
          ),
        ),
  );
}

function actions(subscriber, context) {
  if (subscriber.status !== 'active')
    return h('p', { class: 'muted' }, 'This subscriber no longer receives notifications.');
  const title = h('input', {
    id: 'test-title',
    name: 'title',
    value: 'Test notification',
    maxlength: '256',
    required: true,
  });
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'test-heading' },
    h('h2', { id: 'test-heading' }, 'Send a test to this device'),
    h('div', { class: 'field' }, h('label', { for: 'test-title' }, 'Title'), title),
    h('p', { class: 'muted' }, 'Only this device receives it. It counts one against this month’s quota.'),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Send test'),
      h('button', { type: 'button', class: 'danger', onclick: () => unsubscribe(subscriber, context) }, 'Unsubscribe'),
    ),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const notification = await api.post('/api/v1/notifications', {
        channelCode: subscriber.channelCode,
        title: title.value.trim() || 'Test notification',
        subscriberIds: [subscriber.id],
      });
      refreshQuotaBanner();
      context.navigate(`/notifications/${notification.id}`);
    } catch (problem) {
      showProblem(context.problems, problem);
    }
  });
  return form;
}

async function unsubscribe(subscriber, context) {
  const answer = await askDialog({
    title: 'Unsubscribe this device?',
    body: h('p', {}, 'It stops receiving notifications from this channel until the app registers it again.'),
    confirmLabel: 'Unsubscribe',
    danger: true,
  });
  if (!answer.confirmed) return;
  try {
    await api.delete(`/api/v1/subscribers/${encodeURIComponent(subscriber.id)}`);
    await context.reload();
    announce('Unsubscribed.');
  } catch (problem) {
    showProblem(context.problems, problem);
  }
}

/** The same person's other devices (GET /api/v1/users/{externalId}). */
async function otherDevices(subscriber) {
  if (!subscriber.externalId) return null;
  const user = await api.get(`/api/v1/users/${encodeURIComponent(subscriber.externalId)}`);
  const others = user.subscribers.filter((device) => device.id !== subscriber.id);
  return h(
    'section',
    { 'aria-labelledby': 'other-devices' },
    h('h2', { id: 'other-devices' }, `Other devices of ${subscriber.externalId}`),
    others.length === 0
      ? h('p', {}, 'None.')
      : h(
          'ul',
          {},
          others.map((device) =>
            h(
              'li',
              {},
              h('a', { href: href(`/subscribers/${device.id}`) }, h('code', {}, device.id)),
              ` — ${platformLabels[device.platform] ?? device.platform} in ${device.channelCode}, ${subscriberStatusLabels[device.status] ?? device.status}`,
            ),
          ),
        ),
  );
}
