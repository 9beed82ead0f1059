import { h, replace } from './dom.js';
import { formatWait } from './format.js';

/** Says something to screen readers without moving focus (the page's polite live region). */
export function announce(message) {
  const region = document.getElementById('announcer');
  if (!region) return;
  region.textContent = '';
  // A fresh text node on the next frame is announced even when the same message repeats.
  requestAnimationFrame(() => {
    region.textContent = message;
  });
}

/**
 * An API error as the user should see it: the API's own message, the field problems of validation_failed, the
 * wait of a 429, and the request id when the server failed (to quote in a report). role=alert reads it out. A field
 * problem is named as the form names its field where `labelOf` knows it ("Email", not "email").
 */
export function problemBox(problem, labelOf = () => null) {
  const fields = problem?.details?.fields;
  const wait = problem?.retryAfter ? Number(problem.retryAfter) : null;
  return h(
    'div',
    { class: 'notice notice-error', role: 'alert' },
    h('p', {}, h('strong', {}, problem?.message || String(problem))),
    Array.isArray(fields) && fields.length > 0
      ? h(
          'ul',
          {},
          fields.map((item) => h('li', {}, `${labelOf(item.field) ?? item.field}: ${item.message}`)),
        )
      : null,
    wait && problem.status === 429 && !/try again in/i.test(problem.message)
      ? h('p', {}, `Try again in ${formatWait(wait)}.`)
      : null,
    problem?.status >= 500 && problem.requestId ? h('p', { class: 'muted' }, `Request id: ${problem.requestId}`) : null,
  );
}

/** Shows `problem` in `slot` (an element kept for messages), or clears it when problem is null. */
export function showProblem(slot, problem, labelOf) {
  if (!problem) return replace(slot);
  replace(slot, problemBox(problem, labelOf));
  slot.querySelector('[role="alert"]')?.scrollIntoView({ block: 'nearest' });
  return slot;
}

export function notice(kind, ...content) {
  return h('div', { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, ...content);
}

/**
 * A modal question in a native <dialog>: focus moves into it and is kept there, Escape cancels, and focus returns to
 * what had it. Resolves with the value of the button pressed ('' when canceled).
 */
export function askDialog({ title, body = [], confirmLabel, danger = false, cancelLabel = 'Cancel' }) {
  return new Promise((resolve) => {
    const opener = document.activeElement;
    const headingId = `dialog-${Date.now()}`;
    const form = h(
      'form',
      { method: 'dialog' },
      h('h2', { id: headingId }, title),
      body,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', value: 'confirm', class: danger ? 'danger' : 'primary' }, confirmLabel),
        h('button', { type: 'submit', value: '', formnovalidate: true }, cancelLabel),
      ),
    );
    const dialog = h('dialog', { 'aria-labelledby': headingId }, form);
    dialog.addEventListener('close', () => {
      const answer = dialog.returnValue;
      const values = Object.fromEntries(new FormData(form));
      dialog.remove();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
      resolve(answer === 'confirm' ? { confirmed: true, values } : { confirmed: false, values });
    });
    document.body.append(dialog);
    dialog.showModal();
    // A dangerous question opens on Cancel, so an Enter pressed out of habit does not do what cannot be undone.
    if (danger) form.querySelector('button[value=""]').focus();
  });
}
