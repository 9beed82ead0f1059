// Building DOM nodes from data: text from the API is always inserted as text, never parsed as HTML.

/**
 * h('button', {class: 'primary', onclick: save}, 'Save'). Props: `class`, `style` (an object, applied through
 * element.style, which the Content-Security-Policy allows), `on<event>` listeners, `true` for boolean attributes;
 * null, undefined and false leave an attribute out. Children: nodes, strings, numbers, arrays, null (skipped).
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  applyProps(element, props);
  append(element, children);
  return element;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** The same for SVG elements (the usage chart). */
export function svg(tag, props = {}, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  applyProps(element, props);
  append(element, children);
  return element;
}

function applyProps(element, props) {
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') element.setAttribute('class', value);
    else if (name === 'style') Object.assign(element.style, value);
    else if (name.startsWith('on') && typeof value === 'function')
      element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === 'value' && 'value' in element) element.value = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
}

export function append(element, ...children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** Replaces an element's children. */
export function replace(element, ...children) {
  element.replaceChildren();
  return append(element, children);
}

let counter = 0;
/** An id unique in the page, to tie labels, hints and errors to their inputs. */
export function uid(prefix = 'id') {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** A table with a caption and column headers (scope=col); rows are arrays of cells (nodes or text). */
export function table(caption, headers, rows, options = {}) {
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
    h(
      'table',
      { class: options.class },
      h('caption', { class: options.showCaption ? undefined : 'visually-hidden' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((header) => h('th', { scope: 'col' }, header)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((cells) =>
          h(
            'tr',
            {},
            // data-label: the column's name, shown beside each value when a phone draws rows as cards (app.css).
            cells.map((cell, index) =>
              index === 0 && options.rowHeaders
                ? h('th', { scope: 'row' }, cell)
                : h('td', { 'data-label': headers[index] || undefined }, cell),
            ),
          ),
        ),
      ),
    ),
  );
}
