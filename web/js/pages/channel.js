import { api } from '../api.js';
import { append, h, replace, table } from '../dom.js';
import { formatNumber, formatPercent, formatTime, plural } from '../format.js';
import { pageHeading } from '../layout.js';
import { href } from '../router.js';
import { copyButton } from '../copy-button.js';
import { announce, notice, showProblem } from '../feedback.js';
import { field, onSubmit } from '../forms.js';
import { accountApps } from './apps.js';

/** What each platform sends as `token` when it registers (docs/api.md). */
const platformTokens = [
  {
    platform: 'ios',
    label: 'iOS',
    token: '"<APNs device token, hex>"',
    note: 'From application(_:didRegisterForRemoteNotificationsWithDeviceToken:), as a hex string. Add "pushToStartToken" (iOS 17.2+) with its "template" to receive Live Activities, and "osVersion" so iOS 18 devices get them on a broadcast channel.',
  },
  {
    platform: 'android',
    label: 'Android',
    token: '"<FCM registration token>"',
    note: 'From FirebaseMessaging.getInstance().token.',
  },
  {
    platform: 'web',
    label: 'Web',
    token: '<PushSubscription.toJSON()>',
    note: 'The browser’s PushSubscription object, as JSON. The browser SDK, /sdk/clarion-web.js, registers it for you; or use the public join page above.',
  },
];

export async function channelPage({ container, params }) {
  const heading = pageHeading(container, `Channel ${params.code}`);
  const channel = await api.get(`/api/v1/channels/${encodeURIComponent(params.code)}`);
  heading.textContent = channel.name === channel.code ? `Channel ${channel.code}` : `${channel.name} (${channel.code})`;
  document.title = `${heading.textContent} · Clarion`;
  const counts = channel.subscriberCount;
  const [apps, engagement] = await Promise.all([
    accountApps(),
    api.get(`/api/v1/channels/${encodeURIComponent(channel.code)}/engagement`),
  ]);
  append(
    container,
    h('p', {}, h('a', { href: href('/channels') }, '← All channels')),
    channel.description ? h('p', { class: 'lead' }, channel.description) : null,
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Code'),
      h('dd', {}, h('code', {}, channel.code)),
      h('dt', {}, 'Active subscribers'),
      h(
        'dd',
        {},
        `${formatNumber(counts.total)} (iOS ${formatNumber(counts.ios)}, Android ${formatNumber(counts.android)}, web ${formatNumber(counts.web)})`,
      ),
      h('dt', {}, 'App'),
      h('dd', { id: 'channel-app' }, appName(channel.appId, apps)),
      h('dt', {}, 'Created'),
      h('dd', {}, formatTime(channel.createdAt)),
    ),
    h(
      'p',
      {},
      h(
        'a',
        { class: 'button primary', href: href(`/notifications/new?channel=${encodeURIComponent(channel.code)}`) },
        'Send a test notification',
      ),
    ),
    opensOverTime(engagement),
    missingCredentials(channel, apps),
    apps.length > 0 ? moveAppForm(channel, apps) : null,
    frequencyCapForm(channel),
    quietHoursForm(channel),
    joinPageSection(channel),
    joinInformation(channel.code),
  );
}

/**
 * The channel's last 30 days (GET /channels/{code}/engagement): the totals, a bar per day of the opens, and the same
 * days as a table for reading and for screen readers (the bars are a picture of it, hidden from them).
 */
function opensOverTime(engagement) {
  const { totals, days } = engagement;
  const most = Math.max(1, ...days.map((day) => day.opened));
  const bars = h(
    'div',
    { class: 'day-bars', 'aria-hidden': 'true' },
    days.map((day) => {
      const bar = h('span', { class: 'day-bar', title: `${day.date}: ${formatNumber(day.opened)} opened` });
      // Set through the CSSOM: the dashboard's CSP allows no inline style attribute.
      bar.style.height = `${(day.opened / most) * 100}%`;
      return bar;
    }),
  );
  return h(
    'section',
    { 'aria-labelledby': 'opens-heading' },
    h('h2', { id: 'opens-heading' }, `Opens, last ${days.length} days`),
    h(
      'p',
      {},
      `${plural(totals.notifications, 'notification')}, ${formatNumber(totals.delivered)} delivered, ${formatNumber(totals.opened)} opened`,
      totals.delivered > 0 ? ` (${formatPercent(totals.opened, totals.delivered)} open rate)` : '',
      '.',
    ),
    bars,
    h(
      'details',
      {},
      h('summary', {}, 'By day'),
      table(
        'Opens by day',
        ['Day (UTC)', 'Notifications', 'Delivered', 'Opened', 'Open rate'],
        [...days]
          .reverse()
          .filter((day) => day.notifications > 0)
          .map((day) => [
            day.date,
            formatNumber(day.notifications),
            formatNumber(day.delivered),
            formatNumber(day.opened),
            day.delivered > 0 ? formatPercent(day.opened, day.delivered) : '—',
          ]),
      ),
    ),
  );
}

/**
 * A warning for each platform the channel's app has no credentials for: devices of that platform can still join, but
 * every push to them fails (apns_not_configured, fcm_not_configured) until the credentials are added.
 */
function missingCredentials(channel, apps) {
  const app = apps.find((candidate) => candidate.id === channel.appId);
  if (!app) return null;
  const missing = [
    ['iOS', 'APNs', 'apns_not_configured', app.ios],
    ['Android', 'FCM', 'fcm_not_configured', app.android],
  ].filter(([, , , credentials]) => credentials === null);
  if (missing.length === 0) return null;
  return notice(
    'warning',
    ...missing.map(([platform, provider, reason]) =>
      h(
        'p',
        {},
        h('strong', {}, `${app.name} has no ${platform} (${provider}) credentials. `),
        `${platform} devices can join this channel, but every push to them fails with ${reason} until they are added on the `,
        h('a', { href: href('/apps') }, 'Apps'),
        ' page.',
      ),
    ),
  );
}

function appName(appId, apps) {
  if (appId === null) return 'Built-in (this instance’s credentials)';
  return apps.find((app) => app.id === appId)?.name ?? appId;
}

/**
 * Moves the channel to another app of the account (POST /channels/{code}/update with appId; docs/apps.md, "Moving a
 * channel to another app"). The server refuses while one of the channel's Live Activities runs; the form says why.
 */
function moveAppForm(channel, apps) {
  const problems = h('div');
  const options = apps.map((app) => ({ value: app.id, label: app.name, selected: app.id === channel.appId }));
  const hint =
    'Its next pushes go out with the chosen app’s credentials: the subscribers’ tokens must belong to that app (same bundle id and Firebase project).';
  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-labelledby': 'channel-app-heading' },
    h('h2', { id: 'channel-app-heading' }, 'App'),
    problems,
    field({
      label: 'Deliver with the app',
      hint,
      control: 'select',
      input: { name: 'appId', required: true },
      options,
    }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Move channel')),
  );
  onSubmit(form, problems, async (data) => {
    const appId = String(data.get('appId'));
    const updated = await api.post(`/api/v1/channels/${encodeURIComponent(channel.code)}/update`, { appId });
    const name = appName(updated.appId, apps);
    document.getElementById('channel-app').textContent = name;
    announce(`Channel ${updated.code} now delivers with ${name}.`);
  });
  return form;
}

/** The periods the cap form offers; a channel capped over another period (set by the API) shows its own too. */
const CAP_PERIODS = [
  { seconds: 3600, label: 'hour' },
  { seconds: 86_400, label: 'day (24 hours)' },
  { seconds: 604_800, label: 'week (7 days)' },
  { seconds: 2_592_000, label: '30 days' },
];

function capText(cap) {
  if (!cap) return 'No cap: every notification reaches every subscriber.';
  const period = CAP_PERIODS.find((candidate) => candidate.seconds === cap.periodSeconds);
  return `At most ${formatNumber(cap.count)} per subscriber in any ${period ? period.label : `${formatNumber(cap.periodSeconds)} seconds`}.`;
}

/**
 * The channel's frequency cap (docs/api.md, "Frequency caps"): at most so many of its notifications per subscriber in
 * a rolling period; set, changed or removed with POST /channels/{code}/update.
 */
function frequencyCapForm(initial) {
  let channel = initial;
  const problems = h('div');
  const current = h('p', { id: 'frequency-cap-now' }, capText(channel.frequencyCap));
  const periods = CAP_PERIODS.some((period) => period.seconds === channel.frequencyCap?.periodSeconds)
    ? CAP_PERIODS
    : channel.frequencyCap
      ? [
          ...CAP_PERIODS,
          { seconds: channel.frequencyCap.periodSeconds, label: `${channel.frequencyCap.periodSeconds} seconds` },
        ]
      : CAP_PERIODS;
  const remove = h('button', { type: 'button', hidden: !channel.frequencyCap }, 'Remove cap');
  const save = async (frequencyCap) => {
    channel = await api.post(`/api/v1/channels/${encodeURIComponent(channel.code)}/update`, { frequencyCap });
    current.textContent = capText(channel.frequencyCap);
    remove.hidden = !channel.frequencyCap;
    announce(channel.frequencyCap ? `Frequency cap saved. ${capText(channel.frequencyCap)}` : 'Frequency cap removed.');
  };
  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-labelledby': 'frequency-cap-heading' },
    h('h2', { id: 'frequency-cap-heading' }, 'Frequency cap'),
    current,
    problems,
    field({
      label: 'Notifications per subscriber, at most',
      hint: 'A subscriber who already got this many in the period is skipped (frequency_capped). Sends with ignoreFrequencyCap pass; silent pushes and Live Activities are not counted.',
      input: {
        name: 'count',
        type: 'number',
        min: '1',
        max: '1000',
        required: true,
        value: String(channel.frequencyCap?.count ?? 3),
      },
    }),
    field({
      label: 'In any',
      control: 'select',
      input: { name: 'periodSeconds', required: true },
      options: periods.map((period) => ({
        value: String(period.seconds),
        label: period.label,
        selected: period.seconds === (channel.frequencyCap?.periodSeconds ?? 86_400),
      })),
    }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save cap'), remove),
  );
  onSubmit(form, problems, async (data) =>
    save({ count: Number(data.get('count')), periodSeconds: Number(data.get('periodSeconds')) }),
  );
  remove.addEventListener('click', () => save(null).catch((problem) => showProblem(problems, problem)));
  return form;
}

function quietText(quiet) {
  return quiet
    ? `From ${quiet.start} to ${quiet.end} in each subscriber’s time zone, pushes wait until the end.`
    : 'No quiet hours: pushes go out when they are sent.';
}

/**
 * The channel's quiet hours (docs/api.md, "Quiet hours"): from a start to an end time in each subscriber's own time
 * zone, pushes wait; set, changed or removed with POST /channels/{code}/update.
 */
function quietHoursForm(initial) {
  let channel = initial;
  const problems = h('div');
  const current = h('p', {}, quietText(channel.quietHours));
  const remove = h('button', { type: 'button', hidden: !channel.quietHours }, 'Remove quiet hours');
  const save = async (quietHours) => {
    channel = await api.post(`/api/v1/channels/${encodeURIComponent(channel.code)}/update`, { quietHours });
    current.textContent = quietText(channel.quietHours);
    remove.hidden = !channel.quietHours;
    announce(channel.quietHours ? `Quiet hours saved. ${quietText(channel.quietHours)}` : 'Quiet hours removed.');
  };
  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-labelledby': 'quiet-hours-heading' },
    h('h2', { id: 'quiet-hours-heading' }, 'Quiet hours'),
    current,
    problems,
    field({
      label: 'From',
      hint: 'In each subscriber’s own time zone (the account’s default for those without one). A push due inside waits until the end, unless it expires first; sends with ignoreQuietHours go out at once.',
      input: { name: 'start', type: 'time', required: true, value: channel.quietHours?.start ?? '22:00' },
    }),
    field({
      label: 'Until',
      input: { name: 'end', type: 'time', required: true, value: channel.quietHours?.end ?? '07:00' },
    }),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save quiet hours'), remove),
  );
  onSubmit(form, problems, async (data) => save({ start: String(data.get('start')), end: String(data.get('end')) }));
  remove.addEventListener('click', () => save(null).catch((problem) => showProblem(problems, problem)));
  return form;
}

/**
 * The public join page (docs/web-push.md, "Join page"): a switch, and while it is on the page's address and its QR
 * code (an SVG the server renders, GET /api/v1/channels/{code}/join-qr-code) to share or print.
 */
function joinPageSection(initial) {
  const section = h('section', { class: 'card', 'aria-labelledby': 'join-page' });
  const render = (channel) => {
    const problems = h('div');
    const toggle = h('input', { type: 'checkbox', id: 'join-page-switch', role: 'switch', checked: channel.joinPage });
    toggle.addEventListener('change', async () => {
      toggle.disabled = true;
      try {
        const updated = await api.post(`/api/v1/channels/${encodeURIComponent(channel.code)}/update`, {
          joinPage: toggle.checked,
        });
        render(updated);
        announce(updated.joinPage ? 'Join page on.' : 'Join page off.');
        section.querySelector('#join-page-switch')?.focus();
      } catch (problem) {
        toggle.checked = !toggle.checked;
        toggle.disabled = false;
        showProblem(problems, problem);
      }
    });
    replace(
      section,
      h('h2', { id: 'join-page' }, 'Public join page'),
      h(
        'p',
        {},
        'A page on this server where anyone can get this channel’s notifications in their browser, with no app and no code on your side. Share its link or print its QR code.',
      ),
      h(
        'div',
        { class: 'choice' },
        toggle,
        h(
          'label',
          { for: 'join-page-switch' },
          'Public join page ',
          h('span', { class: 'hint' }, channel.joinPage ? '(on)' : '(off)'),
        ),
      ),
      problems,
      channel.joinPage
        ? joinPageDetails(channel)
        : h(
            'p',
            { class: 'muted' },
            'Off: the page’s address answers “not found”. Turning it on creates a publishable key, limited to this channel, that the page uses.',
          ),
    );
  };
  render(initial);
  return section;
}

function joinPageDetails(channel) {
  const qrPath = `/api/v1/channels/${encodeURIComponent(channel.code)}/join-qr-code`;
  return [
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Address'),
      h(
        'dd',
        {},
        h('a', { href: channel.joinUrl, target: '_blank', rel: 'noopener' }, channel.joinUrl),
        ' ',
        copyButton(channel.joinUrl, 'Copy join page address'),
      ),
    ),
    h(
      'figure',
      { class: 'qr-code' },
      h('img', { src: qrPath, width: '200', height: '200', alt: `QR code of ${channel.joinUrl}` }),
      h('figcaption', {}, h('a', { href: qrPath, download: `join-${channel.code}.svg` }, 'Download the QR code (SVG)')),
    ),
    h(
      'p',
      { class: 'muted' },
      'On iPhone and iPad, browsers get notifications only from a web app on the Home Screen (iOS 16.4 or later): the page walks visitors through adding it.',
    ),
  ];
}

/**
 * The VAPID public key this channel's pushes are signed with (its app's, or the instance's): the one a browser must
 * subscribe with to receive them (docs/web-push.md, "A channel's key").
 */
function webPushKey(code) {
  const dd = h('dd', { id: 'channel-web-push-key' }, 'Loading…');
  api
    .get(`/api/v1/web-push/public-key?channelCode=${encodeURIComponent(code)}`)
    .then(({ publicKey, appId }) =>
      replace(
        dd,
        h('code', { class: 'wrap', 'aria-label': 'Web Push key of this channel' }, publicKey),
        ' ',
        copyButton(publicKey, 'Copy Web Push key'),
        h(
          'span',
          { class: 'muted' },
          appId
            ? ' Its app’s VAPID key: browsers must subscribe with this one (the join page and the SDK do).'
            : ' The instance’s VAPID key (the built-in app).',
        ),
      ),
    )
    .catch((problem) => showProblem(dd, problem));
  return dd;
}

/** How an app joins this channel: the code, the publishable key, and the registration request. */
function joinInformation(code) {
  const origin = window.location.origin;
  // The key is a shell variable in the example: a real key never appears on a page after its creation.
  const example = [
    `curl -X POST ${origin}/api/v1/subscribers \\`,
    '  -H "Authorization: Bearer $CLARION_PUBLISHABLE_KEY" \\',
    '  -H "Content-Type: application/json" \\',
    `  -d '{"channelCode": "${code}", "platform": "android", "token": "<FCM registration token>"}'`,
  ].join('\n');
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'join-info' },
    h('h2', { id: 'join-info' }, 'Join information for apps'),
    h(
      'ol',
      {},
      h(
        'li',
        {},
        'Create a ',
        h('strong', {}, 'publishable'),
        ' key (clr_pk_…) on the ',
        h('a', { href: href('/keys') }, 'API keys'),
        ` page, limited to the channel ${code} if you like. It is safe to ship inside your app: it can only register and unsubscribe subscribers.`,
      ),
      h(
        'li',
        {},
        'In the app, register the device with that key and this channel code. The answer’s ',
        h('code', {}, 'id'),
        ' (sub_…) is the subscriber: keep it to unsubscribe later.',
      ),
      h(
        'li',
        {},
        'From your backend, send with a ',
        h('strong', {}, 'secret'),
        ' key: ',
        h('code', {}, `POST /api/v1/notifications {"channelCode": "${code}", "title": "…"}`),
        '.',
      ),
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Channel code'),
      h('dd', {}, h('code', {}, code), ' ', copyButton(code, 'Copy channel code')),
      h('dt', {}, 'API address'),
      h('dd', {}, h('code', {}, `${origin}/api/v1`)),
      h('dt', {}, 'Web Push key'),
      webPushKey(code),
    ),
    h('h3', {}, 'Example registration request'),
    h('pre', { class: 'code', tabindex: '0' }, h('code', {}, example)),
    copyButton(example, 'Copy example request'),
    table(
      'What each platform sends as token',
      ['Platform', 'platform', 'token'],
      platformTokens.map((entry) => [
        entry.label,
        h('code', {}, entry.platform),
        h('span', {}, h('code', {}, entry.token), ' ', h('span', { class: 'muted' }, entry.note)),
      ]),
      { rowHeaders: true, showCaption: true },
    ),
  );
}
