import { copyButton } from './copy-button.js';
import { h, uid } from './dom.js';

/**
 * Shows a key's full value once, right after it was created or rotated. The value lives only in this panel's
 * input: it is not kept in any variable, URL or storage, and "Done" takes it off the page for good.
 */
export function keyReveal(created, { title = 'Your new API key', extra = null, onDone = () => {} } = {}) {
  const headingId = uid('reveal');
  const inputId = uid('key-value');
  const input = h('input', {
    id: inputId,
    class: 'key-value',
    type: 'text',
    readonly: true,
    value: created.key,
    spellcheck: 'false',
    autocomplete: 'off',
  });
  input.addEventListener('focus', () => input.select());
  const panel = h(
    'section',
    { class: 'card reveal', 'aria-labelledby': headingId },
    h('h2', { id: headingId, tabindex: '-1' }, title),
    h(
      'p',
      { class: 'notice notice-warning' },
      h('strong', {}, 'Copy it now: you will not see this again.'),
      ' Clarion keeps only a hash of the key, so nobody can show it to you later. If it is lost, rotate or revoke it and create another.',
    ),
    h(
      'label',
      { for: inputId },
      `${created.name} (${created.kind}${created.channels ? `, channels ${created.channels.join(', ')}` : ', every channel'})`,
    ),
    h('div', { class: 'copy-row' }, input, copyButton(created.key, 'Copy key')),
    extra,
    h('div', { class: 'actions' }, h('button', { type: 'button', onclick: done }, 'Done: I have stored it')),
  );
  function done() {
    input.value = '';
    panel.remove();
    onDone();
  }
  return panel;
}
