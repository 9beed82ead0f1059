import { h } from '../dom.js';
import { field } from '../forms.js';

/**
 * The compose page's folded sections (docs/dashboard.md, "New notification"), each a part of POST /api/v1/notifications
 * that most sends leave out: how it is delivered, how iOS and Android show it, and its text in other languages. Each
 * returns its element and `read(data)`, what it adds to the request body from the form's FormData.
 */

/** A silent push, the channel's frequency cap and quiet hours passed, a throttle (docs/api.md, "Notifications"). */
export function deliveryOptions() {
  return {
    element: h(
      'details',
      { class: 'options' },
      h('summary', {}, 'Delivery options'),
      check(
        'contentAvailable',
        'Silent push',
        'wakes the app and shows nothing; no title or body, browsers are skipped',
      ),
      check('ignoreFrequencyCap', 'Pass the frequency cap', 'for a message that must arrive; it still counts'),
      check('ignoreQuietHours', 'Pass quiet hours', 'deliver at once, even at night'),
      field({
        label: 'Throttle (pushes a minute)',
        hint: 'Spread the sending: 100,000 subscribers at 10,000 a minute take 10 minutes.',
        input: { name: 'throttlePerMinute', type: 'number', min: '1', max: '1000000', inputmode: 'numeric' },
      }),
    ),
    read(data) {
      const body = {};
      for (const name of ['contentAvailable', 'ignoreFrequencyCap', 'ignoreQuietHours'])
        if (data.get(name)) body[name] = true;
      const throttle = text(data, 'throttlePerMinute');
      if (throttle) body.throttlePerMinute = Number(throttle);
      return body;
    },
  };
}

/**
 * How iOS and Android show it (docs/api.md, "Notifications", alert options): the iOS subtitle, interruption level,
 * relevance score, category and target scene, and the Android notification channel. Left blank, each is left out.
 */
export function displayOptions() {
  const texts = ['subtitle', 'category', 'targetContentId', 'androidChannelId'];
  return {
    element: h(
      'details',
      { class: 'options' },
      h('summary', {}, 'iOS and Android display'),
      field({
        label: 'Subtitle',
        hint: 'iOS: a line under the title.',
        input: { name: 'subtitle', maxlength: '256' },
      }),
      field({
        label: 'Interruption level',
        hint: 'iOS 15+: time-sensitive breaks through Focus, critical sounds even when muted (each needs an Apple capability).',
        control: 'select',
        input: { name: 'interruptionLevel' },
        options: [
          { value: '', label: 'Default (active)' },
          { value: 'passive', label: 'Passive: quietly, into the list' },
          { value: 'active', label: 'Active' },
          { value: 'time-sensitive', label: 'Time sensitive' },
          { value: 'critical', label: 'Critical' },
        ],
      }),
      field({
        label: 'Relevance score',
        hint: 'iOS 15+: 0 to 1; the notification summary puts the highest first.',
        input: { name: 'relevanceScore', type: 'number', min: '0', max: '1', step: 'any', inputmode: 'decimal' },
      }),
      field({
        label: 'Category',
        hint: 'iOS: a notification category your app registered, which gives it its action buttons.',
        input: { name: 'category', maxlength: '64' },
      }),
      field({
        label: 'Target scene',
        hint: 'iOS: the targetContentId of the window a tap brings forward.',
        input: { name: 'targetContentId', maxlength: '64' },
      }),
      field({
        label: 'Android notification channel',
        hint: 'The id of a notification channel your Android app created; not a Clarion channel.',
        input: { name: 'androidChannelId', maxlength: '100' },
      }),
    ),
    read(data) {
      const body = {};
      for (const name of texts) if (text(data, name)) body[name] = text(data, name);
      if (text(data, 'interruptionLevel')) body.interruptionLevel = text(data, 'interruptionLevel');
      if (text(data, 'relevanceScore')) body.relevanceScore = Number(text(data, 'relevanceScore'));
      return body;
    },
  };
}

/**
 * The title and body in other languages (docs/api.md, "Localized text"): rows of a language tag with its own title and
 * body; each subscriber gets the best match for its locale. The rows' fieldset is named `localizations`, so the API's
 * problems with them (`localizations.fr-CA`) show beside it.
 */
export function languageOptions() {
  const error = h('p', { id: 'compose-localizations-error', class: 'field-error', hidden: true });
  const { rows, add } = numberedRows({
    className: 'language',
    legend: 'Language',
    fields: () => [
      field({
        label: 'Language tag',
        hint: 'BCP 47, like fr, fr-CA or pt-BR.',
        input: { name: 'localizationTag', required: true, maxlength: '35', autocomplete: 'off' },
      }),
      field({ label: 'Title in this language', input: { name: 'localizationTitle', maxlength: '256' } }),
      field({
        label: 'Body in this language',
        control: 'textarea',
        input: { name: 'localizationBody', maxlength: '4000' },
      }),
    ],
    addLabel: 'Add a language',
    removeLabel: 'Remove this language',
  });
  return {
    element: h(
      'details',
      { class: 'options' },
      h('summary', {}, 'Other languages'),
      h(
        'fieldset',
        {
          name: 'localizations',
          id: 'compose-localizations',
          'aria-describedby': 'compose-localizations-hint compose-localizations-error',
        },
        h('legend', {}, 'Title and body by language'),
        h(
          'p',
          { id: 'compose-localizations-hint', class: 'hint' },
          'Each subscriber gets the best match for its locale (fr-CA, then fr), else the title and body above. A language replaces both: give it each one it needs.',
        ),
        error,
        rows,
        add,
      ),
    ),
    read(data) {
      const tags = data.getAll('localizationTag').map(String);
      const titles = data.getAll('localizationTitle').map(String);
      const bodies = data.getAll('localizationBody').map(String);
      if (tags.length === 0) return {};
      const localizations = {};
      tags.forEach((tag, index) => {
        const variant = {};
        if (titles[index].trim()) variant.title = titles[index].trim();
        if (bodies[index].trim()) variant.body = bodies[index].trim();
        localizations[tag.trim()] = variant;
      });
      return { localizations };
    },
  };
}

/** The most action buttons a send takes (MAX_ACTIONS, src/domain/notification-content.ts). */
const MAX_ACTIONS = 3;

/**
 * Action buttons (docs/engagement.md, "Action buttons"): up to 3 rows of an id, a label and an optional address. A tap
 * reports the id (the notification.action webhook) and opens the address, if any. The rows' fieldset is named
 * `actions`, so the API's problems with them (`actions.1.id`) show beside it.
 */
export function actionOptions() {
  const error = h('p', { id: 'compose-actions-error', class: 'field-error', hidden: true });
  const { rows, add } = numberedRows({
    className: 'action',
    legend: 'Button',
    fields: () => [
      field({
        label: 'Button id',
        hint: 'What a tap reports: letters, digits, _ . or -, like approve.',
        input: { name: 'actionId', required: true, maxlength: '64', autocomplete: 'off' },
      }),
      field({ label: 'Button label', input: { name: 'actionTitle', required: true, maxlength: '64' } }),
      field({
        label: 'Button link',
        hint: 'Opened by a tap: an absolute http(s) address. Without one a tap only reports.',
        input: { name: 'actionUrl', type: 'url', placeholder: 'https://example.com/orders/42' },
      }),
    ],
    addLabel: 'Add a button',
    removeLabel: 'Remove this button',
    max: MAX_ACTIONS,
  });
  return {
    element: h(
      'details',
      { class: 'options' },
      h('summary', {}, 'Action buttons'),
      h(
        'fieldset',
        { name: 'actions', id: 'compose-actions', 'aria-describedby': 'compose-actions-hint compose-actions-error' },
        h('legend', {}, 'Buttons on the notification'),
        h(
          'p',
          { id: 'compose-actions-hint', class: 'hint' },
          `Up to ${MAX_ACTIONS}. Browsers show them (Chrome the first 2); iOS and Android apps show them with the code in the engagement guide. A tap counts as an action and calls your notification.action webhook.`,
        ),
        error,
        rows,
        add,
      ),
    ),
    read(data) {
      const ids = data.getAll('actionId').map(String);
      const titles = data.getAll('actionTitle').map(String);
      const urls = data.getAll('actionUrl').map(String);
      if (ids.length === 0) return {};
      return {
        actions: ids.map((id, index) => ({
          id: id.trim(),
          title: titles[index].trim(),
          ...(urls[index].trim() ? { url: urls[index].trim() } : {}),
        })),
      };
    },
  };
}

/**
 * Rows a person adds and removes, each a fieldset whose legend numbers it ("Language 2"), renumbered when one goes;
 * the add button focuses the new row's first input, hides at `max` rows, and takes the focus back when a row is
 * removed. Returns the rows' container and the add button, to place in the form.
 */
function numberedRows({ className, legend, fields, addLabel, removeLabel, max = Number.POSITIVE_INFINITY }) {
  const rows = h('div', { class: `${className}-rows` });
  const renumber = () => {
    [...rows.children].forEach((each, index) => {
      each.querySelector('legend').textContent = `${legend} ${index + 1}`;
    });
    add.hidden = rows.children.length >= max;
  };
  const addRow = () => {
    const row = h(
      'fieldset',
      { class: `${className}-row` },
      h('legend', {}, ''),
      ...fields(),
      h(
        'button',
        {
          type: 'button',
          onclick: () => {
            row.remove();
            renumber();
            add.focus();
          },
        },
        removeLabel,
      ),
    );
    rows.append(row);
    renumber();
    row.querySelector('input').focus();
  };
  const add = h('button', { type: 'button', onclick: addRow }, addLabel);
  return { rows, add };
}

/** A box whose description is its description, not part of its name: "Silent push", not "Silent push no title…". */
function check(name, label, description) {
  const id = `compose-${name}`;
  return h(
    'div',
    { class: 'choice' },
    h('input', { type: 'checkbox', id, name, value: 'true', 'aria-describedby': `${id}-hint` }),
    h('label', { for: id }, label),
    h('span', { id: `${id}-hint`, class: 'hint' }, ` ${description}`),
  );
}

function text(data, name) {
  return String(data.get(name) ?? '').trim();
}
