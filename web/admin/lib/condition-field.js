// The trigger's `condition` as a JSON text field (blank: none). Its hint lists the operators (the
// service does not serve its docs, so the form says what it takes: the names from its OpenAPI
// document, condition-operators.js); text that does not parse is said at the field as it is
// typed. The API checks the rest, its errors at paths under `condition`.
import { h } from './dom.js';
import { markFields } from './field-errors.js';
import { textField } from './form-fields.js';
import { parseJson } from './trigger-draft.js';

/** The hint; `operators` are the names the service lists (undefined: it could not be asked). */
const hintOf = (operators) =>
  'Blank: no condition, every watched signal dispatches. Else a JSON object of paths (instance.…, previous.…, signal.…) ' +
  `to a value (equals; an object needs $eq) or to operators${operators ? `: ${operators.join(' ')}` : ''}; ` +
  'combine with $and $or $nor.';

const code = (text) => h('code', {}, text);

/** The longer reference, folded: what the paths read and what each operator takes. */
const reference = () =>
  h(
    'details',
    { class: 'condition-reference' },
    h('summary', {}, 'Paths and operators'),
    h(
      'ul',
      {},
      h(
        'li',
        {},
        code('instance.status'),
        ', ',
        code('instance.customer.email'),
        ', ',
        code('instance.lines.0.sku'),
        ': the instance sent',
      ),
      h('li', {}, code('previous.status'), ': the state before the change, when the signal sends ', code('previous')),
      h(
        'li',
        {},
        code('signal.signal'),
        ', ',
        code('signal.app_label'),
        ', ',
        code('signal.model_name'),
        ', ',
        code('signal.id'),
        ', ',
        code('signal.occurred_at'),
        ', ',
        code('signal.instance_key'),
      ),
      h('li', {}, code('$in'), ', ', code('$nin'), ': a list of values'),
      h('li', {}, code('$gt'), ', ', code('$gte'), ', ', code('$lt'), ', ', code('$lte'), ': a number or an RFC 3339 timestamp'),
      h('li', {}, code('$exists'), ': true (present, even null) or false (absent)'),
      h('li', {}, code('$changed'), ' (instance. paths only, needs previous): true, false or ', code('{"from": "pending", "to": "paid"}')),
      h('li', {}, code('$not'), ': operators that must not all hold, e.g. ', code('{"instance.status": {"$not": {"$in": ["void"]}}}')),
      h('li', {}, code('$and'), ', ', code('$or'), ', ', code('$nor'), ': a list of conditions, all / one / none of which hold'),
      h('li', {}, 'A field the signal lacks makes every operator false but ', code('{"$exists": false}'), '.'),
    ),
    h('p', {}, 'Example: ', code('{"instance.status": "paid", "instance.total": {"$gte": 100}}')),
  );

/**
 * The condition field of `draft`, registered as `condition` (so errors under that path land on
 * it); `operators` as condition-operators.js answers them.
 */
export function conditionField(reg, draft, operators) {
  const wrap = textField(reg, {
    path: 'condition',
    label: 'Condition (JSON)',
    model: draft,
    key: 'condition',
    multiline: true,
    rows: 5,
    hint: hintOf(operators),
    attrs: { placeholder: '{"instance.status": "paid"}' },
  });
  const input = wrap.querySelector('textarea');
  wrap.insertBefore(reference(), input);
  /** Whether the field shows a parse problem (and not the API's last errors, left until the next save). */
  let showing = false;
  const check = () => {
    const { problem } = parseJson(input.value);
    if (problem) markFields(wrap, reg, [{ path: 'condition', message: problem }]);
    else if (showing) markFields(wrap, reg, []);
    showing = Boolean(problem);
  };
  input.addEventListener('input', check);
  check();
  return wrap;
}
