import { api } from '../api.js';
import { h, uid } from '../dom.js';

import { field, onSubmit, radioGroup } from '../forms.js';

/** The "Create a key" form: name, kind, and a scope of all channels or chosen ones. */
export function createKeyForm(channels, onCreated) {
  const problems = h('div');
  const chooser = h(
    'fieldset',
    { class: 'channel-picks', hidden: true },
    h('legend', {}, 'Channels this key may use'),
    channels.length === 0
      ? h('p', { class: 'muted' }, 'There are no channels yet; create one first, or give the key every channel.')
      : channels.map((channel) => {
          const id = uid('scope');
          return h(
            'div',
            { class: 'choice' },
            h('input', { type: 'checkbox', id, name: 'channels', value: channel.code }),
            h(
              'label',
              { for: id },
              h('code', {}, channel.code),
              channel.name !== channel.code ? ` ${channel.name}` : null,
            ),
          );
        }),
  );
  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-labelledby': 'create-key' },
    h('h2', { id: 'create-key' }, 'Create a key'),
    problems,
    field({
      label: 'Key name',
      hint: 'To tell keys apart, e.g. "backend" or "ios-app".',
      input: { name: 'name', required: true, maxlength: '100', autocomplete: 'off' },
    }),
    radioGroup({
      legend: 'Kind',
      name: 'kind',
      value: 'secret',
      choices: [
        {
          value: 'secret',
          label: 'Secret',
          description: 'for your servers: sends notifications, reads everything. Never put it in an app.',
        },
        {
          value: 'publishable',
          label: 'Publishable',
          description: 'for apps and web pages: only registers and unsubscribes devices.',
        },
      ],
    }),
    radioGroup({
      legend: 'Channel scope',
      name: 'scope',
      value: 'all',
      choices: [
        { value: 'all', label: 'All channels', description: 'including channels created later.' },
        {
          value: 'chosen',
          label: 'Chosen channels only',
          description: 'requests naming any other channel are refused (403 channel_not_allowed).',
        },
      ],
    }),
    chooser,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create key')),
  );
  form.addEventListener('change', () => {
    chooser.hidden = form.elements.namedItem('scope').value !== 'chosen';
  });
  onSubmit(form, problems, async (data) => {
    const body = { name: String(data.get('name')).trim(), kind: data.get('kind') };
    if (data.get('scope') === 'chosen') body.channels = data.getAll('channels');
    const created = await api.post('/api/v1/keys', body);
    form.reset();
    chooser.hidden = true;
    await onCreated(created);
  });
  return form;
}
