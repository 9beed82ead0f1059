import { activityPreview } from './activity-preview.js';
import { api } from './api.js';
import { h, replace } from './dom.js';
import { announce, askDialog, showProblem } from './feedback.js';
import { field, markFieldErrors, onSubmit } from './forms.js';

/**
 * The Live Activities page's controls: start an activity from a template form with the live lock-screen preview,
 * and update one (fields merged, alert, priority), each through the same API a backend calls
 * (docs/live-activities.md).
 */

/** Sample fields per template: what the form starts from, valid as they are. */
const SAMPLES = {
  progress: { title: 'Order #42', progress: 0.45, status: 'Packing' },
  timer: { title: 'Pizza', durationSeconds: 1500, status: 'In the oven' },
  score: { title: 'Final', home: { name: 'Lions', score: 0 }, away: { name: 'Bears', score: 0 }, period: '1st half' },
  steps: { title: 'Delivery', currentStep: 1, totalSteps: 4, status: 'Preparing' },
  metrics: {
    title: 'api-1',
    metrics: [
      { label: 'CPU', value: 72, unit: '%', trend: 'up' },
      { label: 'Errors', value: 3 },
    ],
    status: 'Deploying',
  },
  status: { title: 'db-2', state: 'warning', message: 'Disk 91 % full' },
};

const DELIVERY = [
  { value: 'auto', label: 'Auto: broadcast channel for iOS 18+, per token for older devices' },
  { value: 'broadcast', label: 'Broadcast: every iOS device on one APNs channel' },
  { value: 'tokens', label: 'Tokens: every device per token' },
];

/** The fields text as an object, or null while it is not a JSON object (the preview then keeps the last good one). */
function parseFields(text) {
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** What the preview shows for a start: a timer's durationSeconds counts down from now, as the API stores it. */
function previewFields(template, fields) {
  if (template === 'timer' && typeof fields.durationSeconds === 'number' && fields.endsAt === undefined) {
    const { durationSeconds, ...rest } = fields;
    return { ...rest, endsAt: new Date(Date.now() + durationSeconds * 1000).toISOString() };
  }
  return fields;
}

/** A preview slot that follows a fields textarea; returns the ticker for timers. */
function livePreview(slot, template, textarea, base = {}) {
  let tick = () => {};
  const render = () => {
    const fields = parseFields(textarea.value);
    if (!fields) return;
    const preview = activityPreview({
      template: template(),
      status: 'active',
      fields: previewFields(template(), { ...base, ...fields }),
    });
    tick = preview.tick;
    replace(slot, preview.element);
  };
  textarea.addEventListener('input', render);
  render();
  return { render, tick: () => tick() };
}

/** "Start a Live Activity": channel, template, fields (JSON, with a preview), alert, delivery mode. */
export function startForm({ channels, onStarted, ticks }) {
  const problems = h('div');
  const fieldsText = h(
    'textarea',
    {
      id: 'start-fields',
      name: 'fields',
      rows: '6',
      class: 'code',
      'aria-describedby': 'start-fields-hint start-fields-error',
    },
    '',
  );
  const templateField = field({
    label: 'Template',
    control: 'select',
    input: { name: 'template', required: true },
    options: Object.keys(SAMPLES).map((name) => ({ value: name, label: name })),
  });
  const templateSelect = templateField.querySelector('select');
  const slot = h('div', { class: 'activity-preview', 'aria-label': 'Preview', role: 'group' });
  const setSample = () => {
    fieldsText.value = JSON.stringify(SAMPLES[templateSelect.value], null, 2);
  };
  setSample();
  const preview = livePreview(slot, () => templateSelect.value, fieldsText);
  ticks.push(preview.tick);
  templateSelect.addEventListener('change', () => {
    setSample();
    preview.render();
  });
  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-label': 'Start a Live Activity' },
    problems,
    field({
      label: 'Channel',
      control: 'select',
      input: { name: 'channelCode', required: true },
      options: channels.map((channel) => ({ value: channel.code, label: channel.code })),
    }),
    templateField,
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'start-fields' }, 'Fields'),
      h(
        'p',
        { id: 'start-fields-hint', class: 'hint' },
        'JSON, as in POST /api/v1/live-activities; the preview follows as you type.',
      ),
      fieldsText,
      h('p', { id: 'start-fields-error', class: 'field-error', hidden: true }),
    ),
    slot,
    field({
      label: 'Alert title',
      hint: 'Shown when the activity appears; without it, the title and a summary of the fields.',
      input: { name: 'alertTitle', maxlength: '256' },
    }),
    field({ label: 'Delivery', control: 'select', input: { name: 'delivery', required: true }, options: DELIVERY }),
    h('p', { class: 'muted' }, 'Each start, update and end counts one against this month’s quota.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Start activity')),
  );
  onSubmit(form, problems, async (data) => {
    const values = Object.fromEntries(data);
    const fields = parseFields(String(values.fields));
    if (!fields) {
      showProblem(problems, {
        message: 'Fields must be a JSON object, like {"title": "Order #42", "progress": 0.45}.',
        details: { fields: [{ field: 'fields', message: 'must be a JSON object' }] },
      });
      markFieldErrors(form, { details: { fields: [{ field: 'fields', message: 'must be a JSON object' }] } });
      return;
    }
    const body = { channelCode: values.channelCode, template: values.template, fields, delivery: values.delivery };
    if (String(values.alertTitle ?? '').trim()) body.alert = { title: String(values.alertTitle).trim() };
    const activity = await api.post('/api/v1/live-activities', body);
    announce(`Live Activity started for ${activity.recipientCount} subscribers.`);
    await onStarted(activity);
  });
  return form;
}

/** Update one activity: fields to merge (JSON, previewed on top of the current ones), optional alert, priority. */
export async function updateActivity(activity, context) {
  const fieldsText = h(
    'textarea',
    { id: 'update-fields', name: 'fields', rows: '5', class: 'code', required: true },
    '{}',
  );
  const slot = h('div', { class: 'activity-preview', role: 'group', 'aria-label': 'Preview' });
  livePreview(slot, () => activity.template, fieldsText, activity.fields);
  const answer = await askDialog({
    title: `Update "${activity.fields.title ?? activity.id}"`,
    body: [
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'update-fields' }, 'Fields to change'),
        h('p', { class: 'hint' }, 'JSON merged into the current fields; null removes an optional one.'),
        fieldsText,
      ),
      slot,
      field({
        label: 'Alert title',
        hint: 'Lights the screen; without it the update is silent.',
        input: { name: 'alertTitle', maxlength: '256' },
      }),
      field({
        label: 'Priority',
        control: 'select',
        input: { name: 'priority' },
        options: [
          { value: '', label: 'Default: high with an alert, low without' },
          { value: 'high', label: 'High: delivered at once (uses the iOS update budget)' },
          { value: 'low', label: 'Low: delivered when the system sees fit' },
        ],
      }),
    ],
    confirmLabel: 'Update activity',
  });
  if (!answer.confirmed) return;
  const fields = parseFields(String(answer.values.fields));
  if (!fields) return showProblem(context.problems, { message: 'Fields must be a JSON object.' });
  const body = { fields };
  if (String(answer.values.alertTitle ?? '').trim()) body.alert = { title: String(answer.values.alertTitle).trim() };
  if (answer.values.priority) body.priority = answer.values.priority;
  try {
    await api.post(`/api/v1/live-activities/${encodeURIComponent(activity.id)}/update`, body);
    announce('Live Activity updated.');
    await context.reload();
  } catch (problem) {
    showProblem(context.problems, problem);
  }
}

/** "auto: 2 on the broadcast channel, 3 per device": the mode asked for and the recipients of each mode. */
export function deliveryText(activity) {
  const counts = activity.recipientCounts ?? { broadcast: 0, tokens: activity.recipientCount };
  return `${activity.delivery ?? 'tokens'}: ${counts.broadcast} on the broadcast channel, ${counts.tokens} per device`;
}
