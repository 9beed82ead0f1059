import { h, uid } from './dom.js';
import { showProblem } from './feedback.js';

/**
 * A labelled input with an optional hint, both tied to it (label for=, aria-describedby), and a slot for its own
 * error message. `input` holds the input's attributes (name, type, required, pattern, …). A text input without
 * `required` is labelled "(optional)"; a select never is, since it always holds one of its choices (a filter's "All
 * channels" among them), and it takes `required` only when its empty choice must not be submitted.
 */
export function field({ label, hint, input = {}, control = 'input', options = [] }) {
  const id = uid('field');
  const hintId = hint ? `${id}-hint` : null;
  const errorId = `${id}-error`;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ');
  let element;
  if (control === 'select') {
    element = h(
      'select',
      { id, 'aria-describedby': describedBy, ...input },
      options.map((option) => h('option', { value: option.value, selected: option.selected }, option.label)),
    );
  } else if (control === 'textarea') {
    element = h('textarea', { id, 'aria-describedby': describedBy, rows: '3', ...input });
  } else {
    element = h('input', { id, 'aria-describedby': describedBy, type: 'text', ...input });
  }
  return h(
    'div',
    { class: 'field' },
    h(
      'label',
      { for: id },
      label,
      input.required || control === 'select' ? null : h('span', { class: 'optional' }, ' (optional)'),
    ),
    hint ? h('p', { id: hintId, class: 'hint' }, hint) : null,
    element,
    h('p', { id: errorId, class: 'field-error', hidden: true }),
  );
}

/** A group of radio buttons in a fieldset with a legend; each choice may carry a description. */
export function radioGroup({ legend, name, choices, value }) {
  return h(
    'fieldset',
    { class: 'choices' },
    h('legend', {}, legend),
    choices.map((choice) => {
      const id = uid('choice');
      return h(
        'div',
        { class: 'choice' },
        h('input', { type: 'radio', id, name, value: choice.value, checked: choice.value === value }),
        h(
          'label',
          { for: id },
          h('span', {}, choice.label),
          choice.description ? h('span', { class: 'hint' }, ` — ${choice.description}`) : null,
        ),
      );
    }),
  );
}

/**
 * Marks the inputs named in a validation_failed answer (details.fields) as invalid, with the API's message next
 * to each, and moves focus to the first. Fields the form does not have stay in the summary only.
 */
export function markFieldErrors(form, problem) {
  clearFieldErrors(form);
  const fields =
    problem?.details?.fields ??
    (problem?.details?.field ? [{ field: problem.details.field, message: problem.message }] : []);
  let first = null;
  for (const item of fields) {
    const name = String(item.field).split(/[.[]/)[0];
    const input = form.elements.namedItem(name);
    if (!(input instanceof HTMLElement) || !input.id) continue;
    input.setAttribute('aria-invalid', 'true');
    const slot = document.getElementById(`${input.id}-error`);
    if (slot) {
      slot.textContent = item.message;
      slot.hidden = false;
    }
    first ??= input;
  }
  first?.focus();
}

export function clearFieldErrors(form) {
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  for (const slot of form.querySelectorAll('.field-error')) {
    slot.textContent = '';
    slot.hidden = true;
  }
}

/** Runs `action` with the form's submit button disabled and marked busy, so a double click sends once. */
export async function whileBusy(form, action) {
  const buttons = [...form.querySelectorAll('button')];
  for (const button of buttons) button.disabled = true;
  form.setAttribute('aria-busy', 'true');
  try {
    return await action();
  } finally {
    for (const button of buttons) button.disabled = false;
    form.removeAttribute('aria-busy');
  }
}

/**
 * A form's submit, handled the same way on every page: no page load; the buttons busy while `action` runs, so a
 * double click sends once; the last attempt's problems cleared; and a problem `action` throws (an API error envelope,
 * or one built by the page's own checks) shown in `problems` and beside the fields it names. `action` gets the form's
 * FormData. `onProblem` runs after a problem is shown (sign-in clears the password).
 */
/** The text of the label of the form's control named `name` (without "(optional)"), or null when it has none. */
function labelText(form, name) {
  const control = form.elements.namedItem(name);
  const label = control?.labels?.[0];
  if (!label) return null;
  const copy = label.cloneNode(true);
  copy.querySelector('.optional')?.remove();
  return copy.textContent.trim();
}

export function onSubmit(form, problems, action, { onProblem } = {}) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    whileBusy(form, async () => {
      showProblem(problems, null);
      clearFieldErrors(form);
      try {
        await action(new FormData(form));
      } catch (problem) {
        showProblem(problems, problem, (name) => labelText(form, name));
        markFieldErrors(form, problem);
        onProblem?.(problem);
      }
    });
  });
}
