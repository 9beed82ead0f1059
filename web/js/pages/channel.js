import { api } from '../api.js';
import { append, h, table } from '../dom.js';
import { formatNumber, formatTime } from '../format.js';
import { pageHeading } from '../layout.js';
import { href } from '../router.js';
import { copyButton } from '../copy-button.js';

/** What each platform sends as `token` when it registers (docs/api.md). */
const platformTokens = [
  { platform: 'ios', label: 'iOS', token: '"<APNs device token, hex>"', note: 'From application(_:didRegisterForRemoteNotificationsWithDeviceToken:), as a hex string. Add "pushToStartToken" (iOS 17.2+) to receive Live Activities.' },
  { platform: 'android', label: 'Android', token: '"<FCM registration token>"', note: 'From FirebaseMessaging.getInstance().token.' },
  { platform: 'web', label: 'Web', token: '<PushSubscription.toJSON()>', note: 'The browser’s PushSubscription object, as JSON.' },
];

export async function channelPage({ container, params }) {
  const heading = pageHeading(container, `Channel ${params.code}`);
  const channel = await api.get(`/api/v1/channels/${encodeURIComponent(params.code)}`);
  heading.textContent = channel.name === channel.code ? `Channel ${channel.code}` : `${channel.name} (${channel.code})`;
  document.title = `${heading.textContent} · Clarion`;
  const counts = channel.subscriberCount;
  append(
    container,
    h('p', {}, h('a', { href: href('/channels') }, '← All channels')),
    channel.description ? h('p', { class: 'lead' }, channel.description) : null,
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Code'), h('dd', {}, h('code', {}, channel.code)),
      h('dt', {}, 'Active subscribers'), h('dd', {}, `${formatNumber(counts.total)} (iOS ${formatNumber(counts.ios)}, Android ${formatNumber(counts.android)}, web ${formatNumber(counts.web)})`),
      h('dt', {}, 'Created'), h('dd', {}, formatTime(channel.createdAt)),
    ),
    h('p', {}, h('a', { class: 'button primary', href: href(`/notifications/new?channel=${encodeURIComponent(channel.code)}`) }, 'Send a test notification')),
    joinInformation(channel.code),
  );
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
      h('li', {}, 'Create a ', h('strong', {}, 'publishable'), ' key (clr_pk_…) on the ', h('a', { href: href('/keys') }, 'API keys'), ` page, limited to the channel ${code} if you like. It is safe to ship inside your app: it can only register and unsubscribe subscribers.`),
      h('li', {}, 'In the app, register the device with that key and this channel code. The answer’s ', h('code', {}, 'id'), ' (sub_…) is the subscriber: keep it to unsubscribe later.'),
      h('li', {}, 'From your backend, send with a ', h('strong', {}, 'secret'), ' key: ', h('code', {}, `POST /api/v1/notifications {"channelCode": "${code}", "title": "…"}`), '.'),
    ),
    h('dl', { class: 'facts' }, h('dt', {}, 'Channel code'), h('dd', {}, h('code', {}, code), ' ', copyButton(code, 'Copy channel code')), h('dt', {}, 'API address'), h('dd', {}, h('code', {}, `${origin}/api/v1`))),
    h('h3', {}, 'Example registration request'),
    h('pre', { class: 'code', tabindex: '0' }, h('code', {}, example)),
    copyButton(example, 'Copy example request'),
    table(
      'What each platform sends as token',
      ['Platform', 'platform', 'token'],
      platformTokens.map((entry) => [entry.label, h('code', {}, entry.platform), h('span', {}, h('code', {}, entry.token), ' ', h('span', { class: 'muted' }, entry.note))]),
      { rowHeaders: true, showCaption: true },
    ),
  );
}
