import { h } from './dom.js';
import { announce } from './feedback.js';

/**
 * A button that copies `text` to the clipboard and says so. The Clipboard API needs a secure context (HTTPS or
 * localhost); elsewhere the text is put in a hidden field and copied with the older execCommand, which works on
 * plain-HTTP intranet installs too.
 */
export function copyButton(text, label = 'Copy') {
  const button = h('button', { type: 'button', class: 'copy' }, label);
  button.addEventListener('click', async () => {
    const copied = await copyText(text);
    const message = copied ? 'Copied to the clipboard.' : 'Could not copy: select the text and copy it by hand.';
    button.textContent = copied ? 'Copied ✓' : 'Copy failed';
    announce(message);
    setTimeout(() => {
      button.textContent = label;
    }, 2000);
  });
  return button;
}

export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the older way
  }
  const area = h('textarea', { class: 'visually-hidden', readonly: true, 'aria-hidden': 'true', tabindex: '-1' });
  area.value = text;
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}
