// Builds DOM nodes. Text always goes in as text (never markup), so stored strings cannot inject.

/**
 * h('a', { href: '#/x', class: 'y', onclick: fn }, 'text', child, [more]) — attributes named on*
 * become listeners; false/null/undefined attributes and children are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'value' && 'value' in el) el.value = value;
    else if (name === 'checked' || name === 'selected' || name === 'disabled') el[name] = Boolean(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces what a node holds. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A stable element id for a field path such as `webhooks[0].url` (also used for its error). */
export const fieldId = (path) => `f-${String(path).replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** A time as the reader's locale shows it, in a <time> element that keeps the exact value. */
export const time = (iso) => (iso ? h('time', { datetime: iso, title: iso }, new Date(iso).toLocaleString()) : '');

/** Tells screen readers (and tests) what just happened, in the live region. */
export function announce(message) {
  const status = document.getElementById('status');
  if (status) status.textContent = message;
}

/** A page's top: its heading, focused so keyboard and screen reader users land there. */
export function pageHeading(text) {
  document.title = `${text} · action-triggers admin`;
  return h('h1', { tabindex: '-1', class: 'page-heading' }, text);
}
