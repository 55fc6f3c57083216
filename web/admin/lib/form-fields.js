// Labelled inputs bound to a model object, and the registry that finds the input an API error
// path (`webhooks[0].url`) names, so errors can be shown at their field.
import { fieldId, h } from './dom.js';

/** `webhooks[0].headers` of `webhooks[0].headers.X-Token`, `webhooks[0]` of `webhooks[0].url`, … */
const parentOf = (path) => {
  const m = /(\.[^.[\]]*|\[\d+\])$/.exec(path);
  return m ? path.slice(0, m.index) : undefined;
};

/**
 * Where errors go. An entry: `{ path, label, focus, inputs, container }`; `path` may be a
 * function (a header row's path follows the name typed in it).
 */
export function createRegistry() {
  let entries = [];
  const pathOf = (e) => (typeof e.path === 'function' ? e.path() : e.path);
  /** The entry of the path, else of its nearest enclosing path (`payload.a.b` → `payload`), else undefined. */
  const find = (path) => {
    for (let p = path; p; p = parentOf(p)) {
      const hit = entries.find((e) => pathOf(e) === p);
      if (hit) return hit;
    }
    return undefined;
  };
  return {
    add: (entry) => {
      entries.push(entry);
    },
    find,
    reset: () => {
      entries = [];
    },
  };
}

/** A labelled text input or textarea whose edits go to `model[key]`. */
export function textField(reg, { path, label, model, key, multiline = false, rows = 6, hint, attrs = {} }) {
  const id = fieldId(path);
  const hintId = hint ? `${id}-hint` : undefined;
  const input = multiline
    ? h('textarea', { id, rows, spellcheck: 'false', 'aria-describedby': hintId, 'data-hint': hintId, ...attrs })
    : h('input', { id, type: 'text', autocomplete: 'off', 'aria-describedby': hintId, 'data-hint': hintId, ...attrs });
  input.value = model[key] ?? '';
  input.addEventListener('input', () => {
    model[key] = input.value;
  });
  const wrap = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    hint ? h('div', { id: hintId, class: 'hint muted' }, hint) : null,
    input,
  );
  reg.add({ path, label, focus: input, inputs: [input], container: wrap });
  return wrap;
}

/** A labelled select whose choice goes to `model[key]`; an option is its value or `[value, text]`. */
export function selectField(reg, { path, label, model, key, options, attrs = {} }) {
  const id = fieldId(path);
  const select = h(
    'select',
    { id, ...attrs },
    options.map((o) => {
      const [value, text] = Array.isArray(o) ? o : [o, o];
      return h('option', { value, selected: value === model[key] }, text);
    }),
  );
  select.addEventListener('change', () => {
    model[key] = select.value;
  });
  const wrap = h('div', { class: 'field' }, h('label', { for: id }, label), select);
  reg.add({ path, label, focus: select, inputs: [select], container: wrap });
  return wrap;
}

/** A checkbox with its label after it. */
export function checkboxField(reg, { path, id = fieldId(path), label, checked, onChange, register = true }) {
  const box = h('input', { type: 'checkbox', id, checked });
  box.addEventListener('change', () => onChange(box.checked));
  const wrap = h('div', { class: 'check' }, box, h('label', { for: id, class: 'inline' }, label));
  if (register) reg.add({ path, label, focus: box, inputs: [box], container: wrap });
  return { wrap, box };
}

/**
 * A fieldset of repeated rows (content types, webhooks, headers, queues): each row from
 * `renderRow(item, index)`, a Remove button per row and an Add button. Adding or removing
 * changes `items` and calls `changed(focusTarget)` so the form is drawn again.
 */
export function repeated(reg, { path, legend, noun, items, make, renderRow, changed, min = 0 }) {
  const add = h('button', { type: 'button', id: `${fieldId(path)}-add` }, `Add ${noun}`);
  add.addEventListener('click', () => {
    items.push(make());
    changed(`${fieldId(path)}-row-${items.length - 1}`);
  });
  const rows = items.map((item, i) => {
    const remove = items.length > min ? h('button', { type: 'button', class: 'remove' }, `Remove ${noun} ${i + 1}`) : null;
    remove?.addEventListener('click', () => {
      items.splice(i, 1);
      changed(`${fieldId(path)}-add`);
    });
    return h(
      'fieldset',
      { class: 'row', id: `${fieldId(path)}-row-${i}` },
      h('legend', {}, `${noun[0].toUpperCase()}${noun.slice(1)} ${i + 1}`),
      renderRow(item, i),
      remove,
    );
  });
  const set = h(
    'fieldset',
    { class: 'group' },
    h('legend', {}, legend),
    items.length === 0 ? h('p', { class: 'muted' }, `No ${noun}s.`) : null,
    rows,
    h('div', { class: 'actions' }, add),
  );
  reg.add({ path, label: legend, focus: add, inputs: [], container: set });
  return set;
}
