import { api, withQuery } from '../api.js';
import { copyButton } from '../copy-button.js';
import { append, h, replace, table } from '../dom.js';
import { announce, askDialog, notice, showProblem } from '../feedback.js';
import { formatTime, formatTimeText } from '../format.js';
import { keyReveal } from '../key-reveal.js';
import { field } from '../forms.js';
import { pageHeading } from '../layout.js';
import { allChannels } from './channels.js';
import { createKeyForm } from './key-create-form.js';

/** Grace periods offered on rotation (the API takes any number of seconds up to 7 days). */
const graceChoices = [
  { value: '0', label: 'None: the old key stops working at once' },
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '24 hours' },
  { value: '604800', label: '7 days (the longest allowed)' },
];

export async function keysPage({ container }) {
  pageHeading(container, 'API keys');
  append(
    container,
    h(
      'p',
      { class: 'lead' },
      'Secret keys (clr_sk_…) are for your servers: they send notifications and read everything. Publishable keys (clr_pk_…) go inside apps: they can only register and unsubscribe devices. Keys are managed here only; no API key can create or revoke keys.',
    ),
  );
  const revealSlot = h('div');
  const problems = h('div');
  const listHeading = () => h('h2', { id: 'keys-list', tabindex: '-1' }, 'Your keys');
  const listSection = h('section', { 'aria-labelledby': 'keys-list' }, listHeading());
  const channels = await allChannels();

  // Where focus goes when what had it is gone (the revealed key after "Done", a revoked key's row): the list's
  // heading, not the page's body, so a keyboard or screen-reader user goes on from where they were.
  const focusList = () => listSection.querySelector('h2').focus();
  const showReveal = (panel) => {
    replace(revealSlot, panel);
    panel.querySelector('h2').focus();
  };
  const reload = async () => {
    replace(listSection, listHeading());
    await renderList(listSection, context).catch((problem) => showProblem(problems, problem));
  };
  const context = { problems, showReveal, reload, focusList };
  append(
    container,
    revealSlot,
    createKeyForm(channels, async (created) => {
      showReveal(keyReveal(created, { onDone: focusList }));
      announce(`Key ${created.name} created. Copy it now: you will not see it again.`);
      await reload();
    }),
    problems,
    listSection,
    webPushKeySection(),
  );
  await renderList(listSection, context);
}

/**
 * The instance's VAPID public key (docs/web-push.md): public, the same for every account, changed only by the operator;
 * it signs the pushes of channels on the built-in app, while a channel bound to an app uses its app's (channel page).
 * With a subject Apple's push service refuses (a localhost one, from an http://localhost base URL), a warning that
 * Safari will refuse it, in the server's words.
 */
function webPushKeySection() {
  const section = h(
    'section',
    { 'aria-labelledby': 'web-push-key' },
    h('h2', { id: 'web-push-key' }, 'Web Push public key'),
  );
  api
    .get('/api/v1/web-push/public-key')
    .then(({ publicKey, subjectWarning }) =>
      append(
        section,
        h(
          'p',
          {},
          'Browsers joining a channel on the built-in app subscribe with this VAPID key (the applicationServerKey of PushManager.subscribe). It is public and the same for every account on this Clarion instance. A channel bound to an app is signed with that app’s own key, shown on the channel’s page.',
        ),
        h(
          'p',
          {},
          h('code', { class: 'wrap', 'aria-label': 'VAPID public key' }, publicKey),
          ' ',
          copyButton(publicKey, 'Copy public key'),
        ),
        subjectWarning
          ? notice(
              'warning',
              h('p', {}, h('strong', {}, 'Safari will refuse this instance’s pushes. '), subjectWarning),
            )
          : null,
        h(
          'p',
          {},
          'Only the operator changes it (clarion web-push rotate-keys --yes), and every subscribed browser then stops receiving pushes until it subscribes again.',
        ),
      ),
    )
    .catch((problem) => showProblem(section, problem));
  return section;
}

async function renderList(section, context, cursor = null) {
  const page = await api.list(withQuery('/api/v1/keys', { limit: 50, cursor }));
  if (page.data.length === 0 && cursor === null) {
    append(section, h('p', {}, 'No keys yet: create one above.'));
    return;
  }
  append(
    section,
    table(
      'API keys',
      ['Name', 'Kind', 'Key', 'Channels', 'Status', 'Created', 'Last used', 'Actions'],
      page.data.map((key) => [
        key.name,
        key.kind,
        h('code', {}, `${key.start}…`),
        key.channels ? key.channels.join(', ') : 'All channels',
        statusText(key),
        formatTime(key.createdAt),
        formatTime(key.lastUsedAt, 'Never'),
        actions(key, context),
      ]),
      { rowHeaders: true },
    ),
  );
  if (page.nextCursor) {
    const more = h('button', { type: 'button' }, 'Show more keys');
    more.addEventListener('click', () => {
      more.remove();
      renderList(section, context, page.nextCursor).catch((problem) => showProblem(context.problems, problem));
    });
    append(section, more);
  }
}

function statusText(key) {
  if (key.status === 'revoked') return `Revoked ${formatTimeText(key.revokedAt)}`;
  if (key.status === 'expired') return key.replacedBy ? 'Rotated' : 'Expired';
  if (key.expiresAt) return `Active until ${formatTimeText(key.expiresAt)} (rotated)`;
  return 'Active';
}

function actions(key, context) {
  if (key.status !== 'active') return '—';
  const rotate = key.replacedBy
    ? null
    : h(
        'button',
        { type: 'button', onclick: () => rotateKey(key, context) },
        'Rotate',
        h('span', { class: 'visually-hidden' }, ` ${keyLabel(key)}`),
      );
  const revoke = h(
    'button',
    { type: 'button', class: 'danger', onclick: () => revokeKey(key, context) },
    'Revoke',
    h('span', { class: 'visually-hidden' }, ` ${keyLabel(key)}`),
  );
  return h('div', { class: 'row-actions' }, rotate, revoke);
}

/** A key as its buttons name it: its name and its start, since a rotated key and its new value share the name. */
function keyLabel(key) {
  return `${key.name} (${key.start}…)`;
}

async function revokeKey(key, context) {
  const answer = await askDialog({
    title: `Revoke the key "${key.name}"?`,
    body: h('p', {}, `Requests with ${key.start}… are refused from the very next one. This cannot be undone.`),
    confirmLabel: 'Revoke key',
    danger: true,
  });
  if (!answer.confirmed) return;
  try {
    await api.post(`/api/v1/keys/${encodeURIComponent(key.id)}/revoke`);
    announce(`Key ${key.name} revoked.`);
    await context.reload();
    context.focusList();
  } catch (problem) {
    showProblem(context.problems, problem);
  }
}

async function rotateKey(key, context) {
  const answer = await askDialog({
    title: `Rotate the key "${key.name}"?`,
    body: [
      h(
        'p',
        {},
        'A new value is made for the same name, kind and channels. Give the old value a grace period if running servers or apps still use it.',
      ),
      field({
        label: 'Old key keeps working for',
        control: 'select',
        input: { name: 'graceSeconds' },
        options: graceChoices,
      }),
    ],
    confirmLabel: 'Rotate key',
  });
  if (!answer.confirmed) return;
  try {
    const rotated = await api.post(`/api/v1/keys/${encodeURIComponent(key.id)}/rotate`, {
      graceSeconds: Number(answer.values.graceSeconds ?? 0),
    });
    const until = rotated.replaced.expiresAt;
    context.showReveal(
      keyReveal(rotated.key, {
        title: 'Your rotated API key',
        onDone: context.focusList,
        extra: h(
          'p',
          {},
          `The old value (${key.start}…) stops working ${Date.parse(until) <= Date.now() ? 'now' : `at ${formatTimeText(until)}`}.`,
        ),
      }),
    );
    announce(`Key ${key.name} rotated. Copy the new value now: you will not see it again.`);
    await context.reload();
  } catch (problem) {
    showProblem(context.problems, problem);
  }
}
