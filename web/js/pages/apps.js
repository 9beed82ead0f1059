import { api, withQuery } from '../api.js';
import { append, h, replace, table } from '../dom.js';
import { announce, notice, showProblem } from '../feedback.js';
import { formatTime } from '../format.js';
import { field, onSubmit } from '../forms.js';
import { pageHeading } from '../layout.js';

/**
 * Apps (docs/apps.md): the account's own iOS, Android and web credentials. Uploaded files are read in the browser and
 * sent once; the server keeps them encrypted and shows only fingerprints afterwards. "Test credentials" asks APNs and
 * FCM with the stored credentials (POST /api/v1/apps/{id}/test) and shows what each provider said.
 */
export async function appsPage({ container }) {
  pageHeading(container, 'Apps');
  const list = h('section', { 'aria-labelledby': 'app-list' }, h('h2', { id: 'app-list' }, 'Your apps'));
  append(
    container,
    h(
      'p',
      { class: 'lead' },
      'An app holds your own push credentials: the APNs .p8 key for iOS, the Firebase service account for Android, and a VAPID key pair for browsers. Channels deliver through their app; without one they use this instance’s built-in credentials. Private keys are never shown again after upload.',
    ),
    createAppForm(async () => {
      replace(list, h('h2', { id: 'app-list' }, 'Your apps'));
      await renderList(list);
    }),
    list,
  );
  await renderList(list);
}

/** The account's apps, oldest first (the first is a new channel's default), for the channel forms. */
export async function accountApps() {
  return (await api.list(withQuery('/api/v1/apps', { limit: 100 }))).data;
}

async function renderList(section) {
  const page = await api.list(withQuery('/api/v1/apps', { limit: 100 }));
  if (page.data.length === 0) {
    append(section, h('p', {}, 'No apps yet: channels use the built-in credentials.'));
    return;
  }
  const results = h('div', { class: 'app-check-results', 'aria-live': 'polite' });
  append(
    section,
    table(
      'Apps and their credential fingerprints',
      ['App', 'iOS', 'Android', 'Web (VAPID public key)', 'Throttle', 'Credentials', ''],
      page.data.map((app) => {
        const status = h('span', { class: 'app-credentials-status' }, credentialsStatus(app.credentials));
        return [
          h('span', { title: app.id }, app.name),
          app.ios
            ? h('span', {}, h('code', {}, app.ios.bundleId), h('br'), `Key ${app.ios.keyId} · Team ${app.ios.teamId}`)
            : '—',
          app.android ? h('span', {}, h('code', {}, app.android.projectId), h('br'), app.android.clientEmail) : '—',
          h('code', { class: 'fingerprint' }, `${app.web.vapidPublicKey.slice(0, 16)}…`),
          throttleText(app.throttlePerMinute),
          status,
          h(
            'button',
            { type: 'button', onclick: (event) => testCredentials(app, event.currentTarget, results, status) },
            `Test credentials`,
          ),
        ];
      }),
      { rowHeaders: true },
    ),
    results,
    throttleForm(page.data, async () => {
      replace(section, h('h2', { id: 'app-list' }, 'Your apps'));
      await renderList(section);
    }),
  );
}

function throttleText(perMinute) {
  return perMinute === null ? 'None' : `${perMinute.toLocaleString()} pushes a minute`;
}

/**
 * An app's default throttle (docs/apps.md): sends to its channels that give no `throttlePerMinute` go out
 * at this pace, so the visits a push drives do not overwhelm the app's own servers. Blank removes it.
 */
function throttleForm(apps, onSaved) {
  const problems = h('div');
  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-labelledby': 'app-throttle' },
    h('h2', { id: 'app-throttle' }, 'Throttle an app'),
    h(
      'p',
      { class: 'hint' },
      'Sends to the app’s channels that set no throttle of their own are spread to this pace: 100,000 subscribers at 10,000 a minute take 10 minutes.',
    ),
    problems,
    field({
      label: 'App',
      control: 'select',
      input: { name: 'app' },
      options: apps.map((app) => ({ value: app.id, label: app.name })),
    }),
    field({
      label: 'Pushes a minute',
      hint: 'Leave blank for no throttle.',
      input: { name: 'throttlePerMinute', type: 'number', min: '1', max: '1000000', inputmode: 'numeric' },
    }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Save throttle')),
  );
  onSubmit(form, problems, async (data) => {
    const given = String(data.get('throttlePerMinute') ?? '').trim();
    const updated = await api.patch(`/api/v1/apps/${data.get('app')}`, {
      throttlePerMinute: given === '' ? null : Number(given),
    });
    announce(`${updated.name}: ${throttleText(updated.throttlePerMinute).toLowerCase()}.`);
    await onSaved(updated);
  });
  return form;
}

/** What the providers last said of the app's credentials: OK, or failing since when and with what answer. */
function credentialsStatus(credentials) {
  if (credentials.status === 'ok') return 'OK';
  return h(
    'span',
    { class: 'status-failing' },
    'Failing since ',
    formatTime(credentials.failedAt),
    `: ${credentials.error}`,
  );
}

/**
 * Asks the providers (POST /apps/{id}/test) and shows what each said; a refusal also shows in the app's row, until the
 * page is loaded again (the test itself changes nothing stored).
 */
async function testCredentials(app, button, results, status) {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    const check = await api.post(`/api/v1/apps/${app.id}/test`);
    const rows = [
      ['iOS (APNs)', check.ios],
      ['Android (FCM)', check.android],
      ['Web Push', check.web],
    ].filter(([, result]) => result !== null);
    const allGood = rows.every(([, result]) => result.ok);
    replace(
      results,
      notice(
        allGood ? 'success' : 'error',
        h(
          'h3',
          {},
          `${app.name}: ${allGood ? 'the providers accepted the credentials' : 'a provider refused the credentials'}`,
        ),
        h(
          'ul',
          { class: 'app-check' },
          rows.map(([label, result]) =>
            h(
              'li',
              { 'data-ok': String(result.ok) },
              h('strong', {}, `${label}: ${result.ok ? 'OK' : 'refused'}`),
              ` — provider said ${result.providerAnswer}. ${result.message}`,
            ),
          ),
        ),
      ),
    );
    const refused = rows.filter(([, result]) => !result.ok);
    replace(
      status,
      refused.length === 0
        ? credentialsStatus(app.credentials)
        : h(
            'span',
            { class: 'status-failing' },
            `Refused just now: ${refused.map(([label, result]) => `${label} ${result.providerAnswer}`).join(', ')}`,
          ),
    );
    announce(allGood ? 'Credentials accepted.' : 'Credentials refused.');
  } catch (problem) {
    showProblem(results, problem);
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

function createAppForm(onCreated) {
  const problems = h('div');
  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-labelledby': 'create-app' },
    h('h2', { id: 'create-app' }, 'Add an app'),
    problems,
    field({ label: 'Name', input: { name: 'name', required: true, maxlength: '100' } }),
    h(
      'fieldset',
      {},
      h('legend', {}, 'iOS (APNs token authentication)'),
      field({
        label: '.p8 key file',
        hint: 'Certificates, Identifiers & Profiles → Keys in the Apple developer account.',
        input: { name: 'iosKey', type: 'file', accept: '.p8' },
      }),
      field({
        label: 'Key ID',
        hint: '10 characters, shown beside the key.',
        input: { name: 'iosKeyId', maxlength: '10' },
      }),
      field({
        label: 'Team ID',
        hint: '10 characters, under Membership.',
        input: { name: 'iosTeamId', maxlength: '10' },
      }),
      field({ label: 'Bundle ID', input: { name: 'iosBundleId', placeholder: 'com.example.app' } }),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Android (Firebase Cloud Messaging)'),
      field({
        label: 'Service-account JSON',
        hint: 'Firebase console → Project settings → Service accounts → Generate new private key.',
        input: { name: 'androidServiceAccount', type: 'file', accept: '.json,application/json' },
      }),
    ),
    h('p', { class: 'hint' }, 'Web Push: a VAPID key pair is generated for the app.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Add app')),
  );
  onSubmit(form, problems, async (data) => {
    const body = { name: String(data.get('name')).trim() };
    const keyFile = data.get('iosKey');
    if (keyFile instanceof File && keyFile.size > 0) {
      body.ios = {
        key: await keyFile.text(),
        keyId: String(data.get('iosKeyId')).trim(),
        teamId: String(data.get('iosTeamId')).trim(),
        bundleId: String(data.get('iosBundleId')).trim(),
      };
    }
    const accountFile = data.get('androidServiceAccount');
    if (accountFile instanceof File && accountFile.size > 0)
      body.android = { serviceAccount: await accountFile.text() };
    const created = await api.post('/api/v1/apps', body);
    form.reset();
    announce(`App ${created.name} created.`);
    await onCreated(created);
  });
  return form;
}
