import { activityPreview } from '../activity-preview.js';
import { api, withQuery } from '../api.js';
import { append, h, replace } from '../dom.js';
import { announce, askDialog, showProblem } from '../feedback.js';
import { formatNumber, formatTime } from '../format.js';
import { field } from '../forms.js';
import { pageHeading } from '../layout.js';
import { deliveryText, startForm, updateActivity } from '../live-activity-forms.js';
import { allChannels } from './channels.js';

/** How often the page re-reads the activities, so previews follow updates your backend sends. */
const REFRESH_MS = 5000;

/** The statuses a LiveActivity has (docs/live-activities.md), each with its filter label and empty-list text. */
const STATUSES = {
  active: { label: 'Active', empty: 'No active Live Activities.' },
  scheduled: { label: 'Scheduled', empty: 'No scheduled Live Activities.' },
  ended: { label: 'Ended', empty: 'No ended Live Activities.' },
  canceled: { label: 'Canceled', empty: 'No canceled Live Activities.' },
};

/**
 * Live Activities with a preview of each as a lock screen shows it. Started, updated and ended by your backend
 * through the API; here you can also start one from a template form (with the live preview), update and end it.
 */
export async function liveActivitiesPage({ container, query, navigate }) {
  pageHeading(container, 'Live Activities');
  const status = Object.hasOwn(STATUSES, query.get('status') ?? '') ? query.get('status') : 'active';
  const filter = h(
    'form',
    { class: 'filters', 'aria-label': 'Which activities' },
    field({
      label: 'Show',
      control: 'select',
      input: { name: 'status', required: true },
      options: Object.entries(STATUSES).map(([value, { label }]) => ({ value, label, selected: status === value })),
    }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Show')),
  );
  filter.addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(withQuery('/live-activities', { status: new FormData(filter).get('status') }));
  });
  const problems = h('div');
  const grid = h('div', { class: 'activity-grid' });
  const formTicks = [];
  const channels = await allChannels();
  const starter =
    channels.length > 0
      ? h(
          'details',
          { class: 'start-activity' },
          h('summary', {}, 'Start a Live Activity'),
          startForm({ channels, ticks: formTicks, onStarted: () => load() }),
        )
      : null;
  append(
    container,
    h(
      'p',
      { class: 'lead' },
      'Your backend starts and updates activities with POST /api/v1/live-activities; each shows on iOS lock screens (and as an ongoing notification on Android). The previews below follow their current fields.',
    ),
    starter,
    filter,
    problems,
    grid,
  );

  let ticks = [];
  let shown = null;
  const load = async () => {
    const page = await api.list(withQuery('/api/v1/live-activities', { status, limit: 50 }));
    // Re-render only what changed: a refresh that rebuilt identical cards would move keyboard focus for nothing.
    const seen = JSON.stringify(page.data);
    if (seen === shown) return;
    shown = seen;
    ticks = [];
    replace(
      grid,
      page.data.length === 0
        ? h('p', {}, STATUSES[status].empty)
        : page.data.map((activity) => card(activity, { problems, reload: load, ticks })),
    );
  };
  await load();
  // Timers tick every second and the list refreshes every few seconds, until the user leaves the page.
  const timer = setInterval(() => {
    if (!container.isConnected) return clearInterval(timer);
    for (const tick of [...ticks, ...formTicks]) tick();
  }, 1000);
  const refresher = setInterval(() => {
    if (!container.isConnected) return clearInterval(refresher);
    if (!document.hidden && !container.querySelector('dialog'))
      load().catch((problem) => showProblem(problems, problem));
  }, REFRESH_MS);
}

function card(activity, context) {
  const preview = activityPreview(activity);
  context.ticks.push(preview.tick);
  return h(
    'article',
    { class: 'card activity', 'aria-label': `${activity.template} activity ${activity.fields.title ?? activity.id}` },
    preview.element,
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Channel'),
      h('dd', {}, h('code', {}, activity.channelCode)),
      h('dt', {}, 'Template'),
      h('dd', {}, activity.template),
      activity.sendAt ? [h('dt', {}, 'Starts'), h('dd', {}, formatTime(activity.sendAt))] : null,
      activity.status === 'scheduled' || activity.status === 'canceled'
        ? null
        : [h('dt', {}, 'Recipients'), h('dd', {}, formatNumber(activity.recipientCount))],
      h('dt', {}, 'Delivery'),
      h('dd', {}, deliveryText(activity)),
      h('dt', {}, 'Updated'),
      h('dd', {}, formatTime(activity.updatedAt)),
      activity.endedAt ? [h('dt', {}, 'Ended'), h('dd', {}, formatTime(activity.endedAt))] : null,
      h('dt', {}, 'Id'),
      h('dd', {}, h('code', {}, activity.id)),
    ),
    activity.status === 'active' || activity.status === 'scheduled'
      ? h(
          'div',
          { class: 'actions' },
          h(
            'button',
            { type: 'button', onclick: () => updateActivity(activity, context) },
            'Update activity',
            h('span', { class: 'visually-hidden' }, ` ${activity.fields.title ?? activity.id}`),
          ),
          activity.status === 'scheduled'
            ? h(
                'button',
                { type: 'button', class: 'danger', onclick: () => cancel(activity, context) },
                'Cancel activity',
                h('span', { class: 'visually-hidden' }, ` ${activity.fields.title ?? activity.id}`),
              )
            : h(
                'button',
                { type: 'button', class: 'danger', onclick: () => end(activity, context) },
                'End activity',
                h('span', { class: 'visually-hidden' }, ` ${activity.fields.title ?? activity.id}`),
              ),
        )
      : null,
  );
}

async function end(activity, context) {
  const answer = await askDialog({
    title: `End "${activity.fields.title ?? activity.id}"?`,
    body: h('p', {}, 'It stays on lock screens as ended for a while, then goes. This counts one against the quota.'),
    confirmLabel: 'End activity',
    danger: true,
  });
  if (!answer.confirmed) return;
  try {
    await api.post(`/api/v1/live-activities/${encodeURIComponent(activity.id)}/end`, {});
    announce('Live Activity ended.');
    await context.reload();
  } catch (problem) {
    showProblem(context.problems, problem);
  }
}

async function cancel(activity, context) {
  const answer = await askDialog({
    title: `Cancel "${activity.fields.title ?? activity.id}"?`,
    body: h(
      'p',
      {},
      'It will not start: nothing is sent to any device, and its start no longer counts against the quota.',
    ),
    confirmLabel: 'Cancel activity',
    danger: true,
  });
  if (!answer.confirmed) return;
  try {
    await api.post(`/api/v1/live-activities/${encodeURIComponent(activity.id)}/cancel`);
    announce('Live Activity canceled.');
    await context.reload();
  } catch (problem) {
    showProblem(context.problems, problem);
  }
}
