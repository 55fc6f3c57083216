// Shows a problem's `errors: [{path, message}]` all at once: each at the field its path names
// (aria-invalid, aria-describedby → the error text), and every one in a summary linking there.
import { fieldId, h, replace } from '../dom.js';

const MARK = 'data-error-for';

/** Removes what showErrors added. */
export function clearErrors(form, summary) {
  for (const el of form.querySelectorAll('.field-error')) el.remove();
  for (const el of form.querySelectorAll(`[${MARK}]`)) {
    el.removeAttribute('aria-invalid');
    const hint = el.getAttribute('data-hint');
    if (hint) el.setAttribute('aria-describedby', hint); else el.removeAttribute('aria-describedby');
    el.removeAttribute(MARK);
  }
  replace(summary);
  summary.hidden = true;
}

/** Marks the fields and fills the summary; focuses the summary so it is read first. */
export function showErrors(form, summary, registry, errors, heading) {
  clearErrors(form, summary);
  const byEntry = new Map();
  const items = errors.map((e) => {
    const entry = registry.find(e.path);
    if (!entry) return h('li', {}, `${e.path}: ${e.message}`);
    const id = `${fieldId(e.path)}-error`;
    if (!byEntry.has(entry)) byEntry.set(entry, { id, lines: [] });
    byEntry.get(entry).lines.push(e);
    const target = entry.focus;
    const link = h('a', { href: `#${target.id}` }, `${entry.label} (${e.path}): ${e.message}`);
    link.addEventListener('click', (ev) => { ev.preventDefault(); target.focus(); });
    return h('li', {}, link);
  });
  for (const [entry, { id, lines }] of byEntry) {
    entry.container.append(h('div', { class: 'field-error', id }, lines.map((e) => h('div', {}, e.message))));
    for (const input of entry.inputs) {
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute(MARK, '');
      const hint = input.getAttribute('data-hint');
      input.setAttribute('aria-describedby', hint ? `${id} ${hint}` : id);
    }
  }
  replace(summary, h('h2', {}, heading), h('p', {}, `${errors.length} problem${errors.length === 1 ? '' : 's'}:`), h('ul', {}, items));
  summary.hidden = false;
  summary.focus();
}
