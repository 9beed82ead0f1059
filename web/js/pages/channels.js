import { api, withQuery } from '../api.js';
import { append, h, table } from '../dom.js';
import { announce, showProblem } from '../feedback.js';
import { formatNumber, formatTime } from '../format.js';
import { field, onSubmit } from '../forms.js';
import { pageHeading } from '../layout.js';
import { href } from '../router.js';
import { accountApps } from './apps.js';

/** The App select's value for the instance's built-in app (POST /channels with appId: null). */
const BUILT_IN = 'built-in';

/** The channel code rule of src/domain/channel-code.ts, checked here as the user types and again by the API. */
export const CHANNEL_CODE_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$';
const CHANNEL_CODE_RULE =
  '1 to 64 characters: lower-case letters, digits, "_" and "-", starting with a letter or digit. Apps and your backend name the channel by this code, and it cannot be changed later.';

export async function channelsPage({ container, navigate }) {
  pageHeading(container, 'Channels');
  append(
    container,
    h(
      'p',
      { class: 'lead' },
      'A channel is a list of subscribers — devices and browsers — that one request reaches. Apps join a channel by its code.',
    ),
    createChannelForm(navigate),
  );
  const list = h('section', { 'aria-labelledby': 'channels-list' }, h('h2', { id: 'channels-list' }, 'Your channels'));
  append(container, list);
  await appendChannelPages(list);
}

function createChannelForm(navigate) {
  const problems = h('div');
  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-labelledby': 'create-channel' },
    h('h2', { id: 'create-channel' }, 'Create a channel'),
    problems,
    field({
      label: 'Code',
      hint: CHANNEL_CODE_RULE,
      input: {
        name: 'code',
        required: true,
        pattern: CHANNEL_CODE_PATTERN,
        maxlength: '64',
        autocomplete: 'off',
        spellcheck: 'false',
        placeholder: 'news',
      },
    }),
    field({
      label: 'Name',
      hint: 'Shown in the dashboard; defaults to the code.',
      input: { name: 'name', maxlength: '100' },
    }),
    field({ label: 'Description', control: 'textarea', input: { name: 'description', maxlength: '500' } }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create channel')),
  );
  // With apps of its own, the account picks whose credentials deliver the channel (docs/apps.md): the first app is
  // the default, and the instance's built-in app stays a choice.
  accountApps()
    .then((apps) => {
      if (apps.length === 0) return;
      const options = [
        ...apps.map((app, index) => ({
          value: app.id,
          label: index === 0 ? `${app.name} (default)` : app.name,
        })),
        { value: BUILT_IN, label: 'Built-in (this instance’s credentials)' },
      ];
      const hint = 'Whose credentials deliver this channel’s pushes. Apps are managed on the Apps page.';
      form
        .querySelector('.actions')
        .before(field({ label: 'App', hint, control: 'select', input: { name: 'appId', required: true }, options }));
    })
    .catch((problem) => showProblem(problems, problem));
  const code = form.elements.namedItem('code');
  // Explain a bad code while typing, in the words of the rule, not only after a round trip.
  code.addEventListener('input', () => {
    const slot = document.getElementById(`${code.id}-error`);
    const bad = code.value !== '' && !new RegExp(CHANNEL_CODE_PATTERN).test(code.value);
    if (bad) code.setAttribute('aria-invalid', 'true');
    else code.removeAttribute('aria-invalid');
    slot.hidden = !bad;
    slot.textContent = bad
      ? `"${code.value}" is not a valid code: use lower-case letters, digits, "_" and "-", starting with a letter or digit.`
      : '';
  });
  onSubmit(form, problems, async (data) => {
    const values = Object.fromEntries(data);
    const body = { code: String(values.code).trim() };
    if (String(values.name).trim()) body.name = String(values.name).trim();
    if (String(values.description).trim()) body.description = String(values.description).trim();
    if (values.appId) body.appId = values.appId === BUILT_IN ? null : String(values.appId);
    const channel = await api.post('/api/v1/channels', body);
    announce(`Channel ${channel.code} created.`);
    navigate(`/channels/${encodeURIComponent(channel.code)}`);
  });
  return form;
}

/** Appends one page of channels (and a "Show more" button while there are more). */
async function appendChannelPages(section, cursor = null) {
  const status = h('p', { class: 'muted', role: 'status' }, 'Loading channels…');
  append(section, status);
  const page = await api.list(withQuery('/api/v1/channels', { limit: 50, cursor }));
  status.remove();
  if (page.data.length === 0 && cursor === null) {
    append(
      section,
      h(
        'p',
        {},
        'No channels yet. Create one above; then create a publishable key for your app on the ',
        h('a', { href: href('/keys') }, 'API keys'),
        ' page.',
      ),
    );
    return;
  }
  append(
    section,
    table(
      cursor ? 'More channels' : 'Channels, with active subscribers per platform',
      ['Code', 'Name', 'Subscribers', 'iOS', 'Android', 'Web', 'Created'],
      page.data.map((channel) => [
        h('a', { href: href(`/channels/${encodeURIComponent(channel.code)}`) }, h('code', {}, channel.code)),
        channel.name,
        formatNumber(channel.subscriberCount.total),
        formatNumber(channel.subscriberCount.ios),
        formatNumber(channel.subscriberCount.android),
        formatNumber(channel.subscriberCount.web),
        formatTime(channel.createdAt),
      ]),
      { rowHeaders: true },
    ),
  );
  if (page.nextCursor) {
    const more = h('button', { type: 'button' }, 'Show more channels');
    more.addEventListener('click', async () => {
      more.remove();
      await appendChannelPages(section, page.nextCursor).catch((problem) =>
        showProblem(section.appendChild(h('div')), problem),
      );
    });
    append(section, more);
  }
}

/** Channel codes for selects and checkboxes elsewhere (keys, compose): every page of them. */
export async function allChannels() {
  const channels = [];
  let cursor = null;
  do {
    const page = await api.list(withQuery('/api/v1/channels', { limit: 100, cursor }));
    channels.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return channels;
}
