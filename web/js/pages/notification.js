import { api, withQuery } from '../api.js';
import { append, h, replace, table } from '../dom.js';
import { announce, askDialog, showProblem } from '../feedback.js';
import { formatNumber, formatPercent, formatTime } from '../format.js';
import { pageHeading, refreshQuotaBanner } from '../layout.js';
import { href } from '../router.js';
import { explainFailure } from '../failure-reasons.js';
import { platformLabels } from './subscribers.js';
import { statusBadge } from './notifications.js';

/** How often the page reads a notification again while it is being delivered. */
const LIVE_INTERVAL_MS = 2000;

/**
 * One notification: its content, status and delivery stats, its failures, and Cancel while it is scheduled. While it
 * is queued or sending the page reads it again every two seconds, until it is done or the page is left.
 */
export async function notificationPage({ container, params }) {
  const heading = pageHeading(container, 'Notification');
  const body = h('div');
  const problems = h('div');
  append(container, h('p', {}, h('a', { href: href('/notifications') }, '← All notifications')), problems, body);
  let timer = null;
  const show = async () => {
    clearTimeout(timer);
    const notification = await api.get(`/api/v1/notifications/${encodeURIComponent(params.id)}`);
    heading.textContent = notification.title ?? 'Notification';
    document.title = `${heading.textContent} · Clarion`;
    replace(body, details(notification, { problems, reload: show }), await failures(notification));
    if (notification.status === 'queued' || notification.status === 'sending') {
      timer = setTimeout(() => {
        if (body.isConnected) show().catch((problem) => showProblem(problems, problem));
      }, LIVE_INTERVAL_MS);
    } else if (timer !== null) {
      // Said once, when a delivery this page followed ends (not again on Refresh).
      timer = null;
      announce(
        `Delivery finished: ${formatNumber(notification.stats.delivered)} delivered, ${formatNumber(notification.stats.failed)} failed.`,
      );
    }
  };
  await show();
}

function details(notification, context) {
  const { stats } = notification;
  const cancelable =
    notification.status === 'scheduled' || (notification.status === 'sending' && notification.deliverAtLocalTime);
  return h(
    'div',
    {},
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Status'),
      h('dd', {}, statusBadge(notification), notification.failureReason ? ` (${notification.failureReason})` : null),
      h('dt', {}, 'Channel'),
      h(
        'dd',
        {},
        h(
          'a',
          { href: href(`/channels/${encodeURIComponent(notification.channelCode)}`) },
          h('code', {}, notification.channelCode),
        ),
      ),
      h('dt', {}, 'Audience'),
      h('dd', {}, audienceText(notification.audience)),
      h('dt', {}, 'Body'),
      h('dd', {}, notification.body ?? '—'),
      notification.contentAvailable
        ? [h('dt', {}, 'Kind'), h('dd', {}, 'Silent push: wakes the app, shows nothing; browsers are skipped')]
        : null,
      notification.throttlePerMinute
        ? [
            h('dt', {}, 'Throttle'),
            h(
              'dd',
              {},
              `${formatNumber(notification.throttlePerMinute)} pushes a minute`,
              notification.expectedFinishAt
                ? [', planned to finish ', formatTime(notification.expectedFinishAt)]
                : null,
            ),
          ]
        : null,
      h('dt', {}, 'Link'),
      h('dd', {}, notification.url ?? '—'),
      notification.actions
        ? [
            h('dt', {}, 'Buttons'),
            h(
              'dd',
              {},
              h(
                'ul',
                {},
                notification.actions.map((action) =>
                  h(
                    'li',
                    {},
                    action.title,
                    ' (',
                    h('code', {}, action.id),
                    action.url ? [') opens ', action.url] : ') reports only',
                  ),
                ),
              ),
            ),
          ]
        : null,
      h('dt', {}, 'Created'),
      h('dd', {}, formatTime(notification.createdAt)),
      notification.sendAt ? [h('dt', {}, 'Scheduled for'), h('dd', {}, formatTime(notification.sendAt))] : null,
      notification.canceledAt ? [h('dt', {}, 'Canceled'), h('dd', {}, formatTime(notification.canceledAt))] : null,
      h('dt', {}, 'Id'),
      h('dd', {}, h('code', {}, notification.id)),
    ),
    h(
      'ul',
      { class: 'stats', 'aria-label': 'Delivery' },
      stat('Recipients', notification.recipientCount),
      stat('Delivered', stats.delivered),
      stat('Failed', stats.failed),
      stat('Skipped', stats.skipped),
      stat('Pending', stats.pending),
      stats.held > 0 ? stat('Waiting for quiet hours to end', stats.held) : null,
    ),
    engagement(notification),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          onclick: () =>
            context
              .reload()
              .then(() => announce('Refreshed.'))
              .catch((problem) => showProblem(context.problems, problem)),
        },
        'Refresh',
      ),
      cancelable
        ? h(
            'button',
            { type: 'button', class: 'danger', onclick: () => cancel(notification, context) },
            'Cancel notification',
          )
        : null,
    ),
  );
}

/** Whom in the channel it went to, in words. */
function audienceText(audience) {
  if (!audience) return 'Every subscriber of the channel';
  if (audience.type === 'externalIds') return `The devices of ${formatNumber(audience.count)} user(s)`;
  if (audience.type === 'subscriberIds') return `${formatNumber(audience.count)} chosen subscriber(s)`;
  const parts = [];
  if (audience.all.length > 0) parts.push(`all of: ${audience.all.join(', ')}`);
  if (audience.any.length > 0) parts.push(`any of: ${audience.any.join(', ')}`);
  return `Subscribers tagged ${parts.join('; ')}`;
}

/**
 * What people did with it, from the receipts their devices reported (docs/engagement.md): the funnel from recipients
 * to opens, each step as a share of the deliveries, then the same per platform.
 */
function engagement(notification) {
  const { stats } = notification;
  const ofDelivered = (value) => `${formatNumber(value)} (${formatPercent(value, stats.delivered)})`;
  const platforms = Object.entries(stats.byPlatform);
  return h(
    'section',
    { 'aria-labelledby': 'engagement' },
    h('h2', { id: 'engagement' }, 'Engagement'),
    h(
      'ol',
      { class: 'stats funnel', 'aria-label': 'From recipients to opens' },
      stat('Recipients', notification.recipientCount),
      stat('Delivered', stats.delivered),
      statText('Received', ofDelivered(stats.received)),
      statText('Opened', ofDelivered(stats.opened)),
    ),
    h(
      'p',
      { class: 'muted' },
      `${formatNumber(stats.dismissed)} dismissed, ${formatNumber(stats.actions)} tapped an action. Counted from the receipts devices report; an app reports them with a few lines of code (docs/engagement.md).`,
    ),
    platforms.length > 0
      ? table(
          'Engagement by platform',
          ['Platform', 'Delivered', 'Received', 'Opened', 'Open rate'],
          platforms.map(([platform, counts]) => [
            platformLabels[platform] ?? platform,
            formatNumber(counts.delivered),
            formatNumber(counts.received),
            formatNumber(counts.opened),
            formatPercent(counts.opened, counts.delivered),
          ]),
          { rowHeaders: true },
        )
      : null,
  );
}

function statText(label, text) {
  return h('li', {}, h('span', { class: 'stat-value' }, text), h('span', { class: 'stat-label' }, label));
}

function stat(label, value) {
  return statText(label, formatNumber(value));
}

async function cancel(notification, context) {
  const answer = await askDialog({
    title: 'Cancel this notification?',
    body: h(
      'p',
      {},
      notification.status === 'scheduled'
        ? 'It will not be sent, and its quota unit is refunded.'
        : 'Time zones not reached yet will not get it.',
    ),
    confirmLabel: 'Cancel notification',
    cancelLabel: 'Keep it',
    danger: true,
  });
  if (!answer.confirmed) return;
  try {
    await api.post(`/api/v1/notifications/${encodeURIComponent(notification.id)}/cancel`);
    announce('Notification canceled.');
    refreshQuotaBanner();
    await context.reload();
  } catch (problem) {
    showProblem(context.problems, problem);
  }
}

/** A failure's reason code, with what it means and what fixes it where the dashboard knows. */
function reasonCell(reason) {
  const explained = explainFailure(reason);
  return h(
    'div',
    { class: 'failure-reason' },
    h('code', {}, reason),
    explained ? h('p', { class: 'muted' }, explained[0], ' ', h('strong', {}, 'Fix: '), explained[1]) : null,
  );
}

async function failures(notification) {
  const section = h('section', { 'aria-labelledby': 'failures' }, h('h2', { id: 'failures' }, 'Delivery failures'));
  // Skips are listed too (a silent push's browsers), except subscribers that left before their push was due.
  if (notification.stats.failed === 0 && notification.stats.skipped === 0) {
    append(section, h('p', {}, 'None so far.'));
    return section;
  }
  const page = await api.list(
    withQuery(`/api/v1/notifications/${encodeURIComponent(notification.id)}/failures`, { limit: 100 }),
  );
  if (page.data.length === 0) {
    append(section, h('p', {}, 'None. The skipped subscribers had left before their push was due.'));
    return section;
  }
  append(
    section,
    table(
      'Subscribers the notification could not be delivered to',
      ['Subscriber', 'Platform', 'Outcome', 'Reason', 'When'],
      page.data.map((failure) => [
        h(
          'a',
          { href: href(`/subscribers/${encodeURIComponent(failure.subscriberId)}`) },
          h('code', {}, failure.subscriberId),
        ),
        failure.platform,
        failure.outcome === 'skipped' ? 'Skipped' : 'Failed',
        reasonCell(failure.reason),
        formatTime(failure.failedAt),
      ]),
      { rowHeaders: true },
    ),
    page.nextCursor ? h('p', { class: 'muted' }, 'Showing the first 100 failures.') : null,
  );
  return section;
}
