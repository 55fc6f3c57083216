// Shows a problem's `errors: [{path, message}]` all at once: each at the field its path names
// (aria-invalid, aria-describedby → the error text), found through a form registry
// (form-fields.js); `showErrors` also lists every one in a summary linking there.
import { fieldId, h, replace } from './dom.js';

/** On a marked input; its value is the aria-invalid it had before ('' for none), put back on clearing. */
const MARK = 'data-error-for';

/** Removes what markFields added: the error texts, and each input's marks (its hint stays described). */
export function clearFieldErrors(root) {
  for (const el of root.querySelectorAll('.field-error')) el.remove();
  for (const el of root.querySelectorAll(`[${MARK}]`)) {
    const before = el.getAttribute(MARK);
    if (before) el.setAttribute('aria-invalid', before);
    else el.removeAttribute('aria-invalid');
    const hint = el.getAttribute('data-hint');
    if (hint) el.setAttribute('aria-describedby', hint);
    else el.removeAttribute('aria-describedby');
    el.removeAttribute(MARK);
  }
}

const entryPath = (entry) => (typeof entry.path === 'function' ? entry.path() : entry.path);

/**
 * An error's text at its field: the message, after the error's path when that goes deeper than
 * the field (`condition.$and.1.instance.total.$gt: must be a number …` at the condition field).
 */
const atField = (e, entry) => (e.path === entryPath(entry) ? e.message : `${e.path}: ${e.message}`);

/**
 * Shows each error at its registry entry's field, in place of the last ones; `line(error, entry)`
 * is its text there (by default the message, with its path when deeper than the field). Returns
 * `{ placed: [{ error, entry }], rest }`: `rest` are the errors no field shows, for the caller to
 * show some other way.
 */
export function markFields(root, registry, errors, { line = atField } = {}) {
  clearFieldErrors(root);
  const placed = errors.map((error) => ({ error, entry: registry.find(error.path) })).filter((p) => p.entry);
  const byEntry = new Map();
  for (const { error, entry } of placed) {
    if (!byEntry.has(entry)) byEntry.set(entry, { id: `${fieldId(error.path)}-error`, lines: [] });
    byEntry.get(entry).lines.push(error);
  }
  for (const [entry, { id, lines }] of byEntry) {
    entry.container.append(
      h(
        'div',
        { class: 'field-error', id },
        lines.map((e) => h('div', {}, line(e, entry))),
      ),
    );
    for (const input of entry.inputs) {
      if (!input.hasAttribute(MARK)) input.setAttribute(MARK, input.getAttribute('aria-invalid') ?? '');
      input.setAttribute('aria-invalid', 'true');
      const hint = input.getAttribute('data-hint');
      input.setAttribute('aria-describedby', hint ? `${id} ${hint}` : id);
    }
  }
  return { placed, rest: errors.filter((e) => !placed.some((p) => p.error === e)) };
}

/** Removes what showErrors added. */
export function clearErrors(form, summary) {
  clearFieldErrors(form);
  replace(summary);
  summary.hidden = true;
}

/** Marks the fields and fills the summary; focuses the summary so it is read first. */
export function showErrors(form, summary, registry, errors, heading) {
  clearErrors(form, summary);
  markFields(form, registry, errors);
  const items = errors.map((e) => {
    const entry = registry.find(e.path);
    if (!entry) return h('li', {}, `${e.path}: ${e.message}`);
    const target = entry.focus;
    const link = h('a', { href: `#${target.id}` }, `${entry.label} (${e.path}): ${e.message}`);
    link.addEventListener('click', (ev) => {
      ev.preventDefault();
      target.focus();
    });
    return h('li', {}, link);
  });
  replace(summary, h('h2', {}, heading), h('p', {}, `${errors.length} problem${errors.length === 1 ? '' : 's'}:`), h('ul', {}, items));
  summary.hidden = false;
  summary.focus();
}
