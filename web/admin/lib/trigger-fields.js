// Every field of a trigger, as form inputs bound to a draft (trigger-draft.js). Each input is
// registered under the path the API names it by, e.g. `webhooks[0].headers.X-Token`.
import { fieldId, h } from './dom.js';
import { conditionField } from './condition-field.js';
import { checkboxField, repeated, selectField, textField } from './form-fields.js';
import { emptyContentType, emptyHeader, emptyQueue, emptyWebhook } from './trigger-draft.js';
import { HTTP_METHODS, SIGNALS } from './trigger-text.js';

function signalsSet(reg, draft) {
  const boxes = SIGNALS.map((s) =>
    checkboxField(reg, {
      path: `config_signals.${s}`,
      id: fieldId(`config_signals.${s}`),
      label: s,
      checked: draft.signals.has(s),
      register: false,
      onChange: (on) => {
        if (on) draft.signals.add(s);
        else draft.signals.delete(s);
      },
    }),
  );
  const set = h(
    'fieldset',
    { class: 'group' },
    h('legend', {}, 'Signals'),
    h(
      'div',
      { class: 'inline-checks' },
      boxes.map((b) => b.wrap),
    ),
  );
  reg.add({ path: 'config_signals', label: 'Signals', focus: boxes[0].box, inputs: boxes.map((b) => b.box), container: set });
  return set;
}

function contentTypes(reg, draft, changed) {
  return repeated(reg, {
    path: 'content_types',
    legend: 'Content types',
    noun: 'content type',
    items: draft.content_types,
    min: 1,
    make: emptyContentType,
    changed,
    renderRow: (ct, i) =>
      h(
        'div',
        { class: 'pair' },
        textField(reg, { path: `content_types[${i}].app_label`, label: 'App label', model: ct, key: 'app_label' }),
        textField(reg, { path: `content_types[${i}].model_name`, label: 'Model name', model: ct, key: 'model_name' }),
      ),
  });
}

/** Header rows: their error path follows the name typed (`webhooks[0].headers.X-Token`). */
function headers(reg, webhook, w, changed) {
  return repeated(reg, {
    path: `webhooks[${w}].headers`,
    legend: 'Headers',
    noun: 'header',
    items: webhook.headers,
    make: emptyHeader,
    changed,
    renderRow: (header, i) => {
      const base = `webhooks[${w}].headers#${i}`;
      const name = textField(reg, { path: `${base}.name`, label: 'Header name', model: header, key: 'name' });
      const value = textField(reg, {
        path: `${base}.value`,
        label: 'Header value',
        model: header,
        key: 'value',
        hint: 'May hold {{ instance.… }} or a dynamic value such as {{ secrets.token }}',
      });
      const inputs = [name, value].map((f) => f.querySelector('input'));
      reg.add({
        path: () => `webhooks[${w}].headers.${header.name.trim()}`,
        get label() {
          return `Webhook ${w + 1}, header ${header.name.trim()}`;
        },
        focus: inputs[0],
        inputs,
        container: value,
      });
      return h('div', { class: 'pair' }, name, value);
    },
  });
}

/** An entry's own payload (`webhooks[0].payload`): errors inside it (`….payload.order.id`) land on it. */
const entryPayload = (reg, path, model) =>
  textField(reg, {
    path,
    label: 'Own payload template (JSON)',
    model,
    key: 'payload',
    multiline: true,
    rows: 4,
    hint: "Blank: the trigger's payload. Set: sent by this action instead of it (not merged).",
  });

function webhooks(reg, draft, changed) {
  return repeated(reg, {
    path: 'webhooks',
    legend: 'Webhooks',
    noun: 'webhook',
    items: draft.webhooks,
    make: emptyWebhook,
    changed,
    renderRow: (wh, i) =>
      h(
        'div',
        {},
        textField(reg, { path: `webhooks[${i}].url`, label: 'URL', model: wh, key: 'url', attrs: { inputmode: 'url', class: 'wide' } }),
        h(
          'div',
          { class: 'pair' },
          selectField(reg, { path: `webhooks[${i}].http_method`, label: 'Method', model: wh, key: 'http_method', options: HTTP_METHODS }),
          textField(reg, {
            path: `webhooks[${i}].timeout_secs`,
            label: 'Timeout (seconds)',
            model: wh,
            key: 'timeout_secs',
            hint: 'Blank: the service default',
            attrs: { inputmode: 'decimal' },
          }),
          textField(reg, {
            path: `webhooks[${i}].signing_secret`,
            label: 'Signing secret',
            model: wh,
            key: 'signing_secret',
            hint: "A name in the config's signing_secrets; blank: the global secret",
          }),
        ),
        headers(reg, wh, i, changed),
        entryPayload(reg, `webhooks[${i}].payload`, wh),
      ),
  });
}

function queues(reg, draft, changed) {
  return repeated(reg, {
    path: 'msg_broker_queues',
    legend: 'Broker queues',
    noun: 'broker queue',
    items: draft.msg_broker_queues,
    make: emptyQueue,
    changed,
    renderRow: (q, i) =>
      h(
        'div',
        {},
        textField(reg, {
          path: `msg_broker_queues[${i}].name`,
          label: 'Broker name',
          model: q,
          key: 'name',
          hint: "A broker of the service's config",
        }),
        textField(reg, {
          path: `msg_broker_queues[${i}].conn_details`,
          label: 'Connection details (JSON object of strings)',
          model: q,
          key: 'conn_details',
          multiline: true,
          rows: 3,
        }),
        textField(reg, {
          path: `msg_broker_queues[${i}].parameters`,
          label: 'Parameters (JSON object of strings)',
          model: q,
          key: 'parameters',
          multiline: true,
          rows: 3,
        }),
        textField(reg, {
          path: `msg_broker_queues[${i}].timeout_secs`,
          label: 'Timeout (seconds)',
          model: q,
          key: 'timeout_secs',
          hint: 'Blank: the service default',
          attrs: { inputmode: 'decimal' },
        }),
        entryPayload(reg, `msg_broker_queues[${i}].payload`, q),
      ),
  });
}

const ORDERINGS = [
  ['none', 'None: each signal is sent at once'],
  ['per_instance', "Per instance: one instance's signals in the order accepted (instance_key, else instance.pk, else instance.id)"],
];

/** All the trigger's fields, in the order a reader fills them; `operators` for the condition's hint. */
export function triggerFields(reg, draft, changed, operators) {
  const active = checkboxField(reg, {
    path: 'active',
    label: 'Active (signals dispatch it)',
    checked: draft.active,
    onChange: (on) => {
      draft.active = on;
    },
  });
  return [
    signalsSet(reg, draft),
    contentTypes(reg, draft, changed),
    conditionField(reg, draft, operators),
    active.wrap,
    selectField(reg, { path: 'ordering', label: 'Ordering', model: draft, key: 'ordering', options: ORDERINGS }),
    webhooks(reg, draft, changed),
    queues(reg, draft, changed),
    textField(reg, {
      path: 'payload',
      label: 'Payload template (JSON)',
      model: draft,
      key: 'payload',
      multiline: true,
      rows: 8,
      hint: 'Blank: the default body. A webhook or queue with a payload of its own sends that instead. Strings may hold {{ instance.… }} and dynamic values; dynamic values are resolved only when a dispatch sends.',
    }),
  ];
}
