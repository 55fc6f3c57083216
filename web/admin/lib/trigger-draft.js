// The form's model of a trigger: what the inputs hold (JSON fields as the text typed), and the
// request body it makes. The API is the validator; the only check here is that JSON parses.
import { SIGNALS } from './trigger-text.js';

const jsonText = (v) => (v === undefined || v === null ? '' : JSON.stringify(v, null, 2));

export const emptyWebhook = () => ({ url: '', http_method: 'POST', headers: [], timeout_secs: '', signing_secret: '', payload: '' });
export const emptyQueue = () => ({ name: '', conn_details: '', parameters: '', timeout_secs: '', payload: '' });
export const emptyHeader = () => ({ name: '', value: '' });
export const emptyContentType = () => ({ app_label: '', model_name: '' });

export const emptyDraft = () => ({
  signals: new Set(['post_save']),
  content_types: [emptyContentType()],
  active: true,
  webhooks: [emptyWebhook()],
  msg_broker_queues: [],
  payload: '',
  condition: '',
  ordering: 'none',
});

/** A stored trigger (the API's resource) as the form shows it. */
export const draftOf = (t) => ({
  signals: new Set(t.config_signals.map((s) => s.signal)),
  content_types: t.content_types.map((ct) => ({ ...ct })),
  active: t.active,
  webhooks: t.webhooks.map((w) => ({
    url: w.url,
    http_method: w.http_method,
    headers: Object.entries(w.headers ?? {}).map(([name, value]) => ({ name, value })),
    timeout_secs: w.timeout_secs === undefined ? '' : String(w.timeout_secs),
    signing_secret: w.signing_secret ?? '',
    payload: jsonText(w.payload),
  })),
  msg_broker_queues: t.msg_broker_queues.map((q) => ({
    name: q.name,
    conn_details: jsonText(q.conn_details),
    parameters: jsonText(q.parameters),
    timeout_secs: q.timeout_secs === undefined ? '' : String(q.timeout_secs),
    payload: jsonText(q.payload),
  })),
  payload: jsonText(t.payload),
  condition: jsonText(t.condition),
  ordering: t.ordering ?? 'none',
});

/** A typed number as a number; anything else as typed, so the API names the problem. */
const numberOf = (text) => {
  const s = text.trim();
  return s === '' ? undefined : Number.isFinite(Number(s)) ? Number(s) : s;
};

/** Typed JSON: `{ value }` (undefined when blank), or `{ problem }` saying why it does not parse. */
export const parseJson = (text) => {
  if (text.trim() === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { problem: `is not valid JSON (${e.message})` };
  }
};

const withOptional = (object, key, value) => (value === undefined ? object : { ...object, [key]: value });

/**
 * The request body of the draft, and the field errors of JSON fields that do not parse:
 * `{ body, errors: [{path, message}] }`. Blank optional fields are left out.
 */
export function bodyOf(draft) {
  const errors = [];
  const json = (text, path) => {
    const { value, problem } = parseJson(text);
    if (problem) errors.push({ path, message: problem });
    return value;
  };
  const webhooks = draft.webhooks.map((w, i) => {
    const named = w.headers.filter((x) => x.name.trim() !== '' || x.value !== '');
    const headers = named.length === 0 ? undefined : Object.fromEntries(named.map((x) => [x.name.trim(), x.value]));
    const secret = (w.signing_secret ?? '').trim();
    const out = withOptional(
      withOptional({ url: w.url.trim(), http_method: w.http_method }, 'headers', headers),
      'timeout_secs',
      numberOf(w.timeout_secs),
    );
    const signed = withOptional(out, 'signing_secret', secret === '' ? undefined : secret);
    return withOptional(signed, 'payload', json(w.payload ?? '', `webhooks[${i}].payload`));
  });
  const queues = draft.msg_broker_queues.map((q, i) => {
    let out = { name: q.name.trim() };
    out = withOptional(out, 'conn_details', json(q.conn_details, `msg_broker_queues[${i}].conn_details`));
    out = withOptional(out, 'parameters', json(q.parameters, `msg_broker_queues[${i}].parameters`));
    out = withOptional(out, 'timeout_secs', numberOf(q.timeout_secs));
    return withOptional(out, 'payload', json(q.payload ?? '', `msg_broker_queues[${i}].payload`));
  });
  const fields = {
    config_signals: SIGNALS.filter((s) => draft.signals.has(s)).map((signal) => ({ signal })),
    content_types: draft.content_types.map((ct) => ({ app_label: ct.app_label.trim(), model_name: ct.model_name.trim() })),
    webhooks,
    msg_broker_queues: queues,
    active: draft.active,
    ordering: draft.ordering,
  };
  // Blank condition: none (a PUT without one removes it).
  const body = withOptional(
    withOptional(fields, 'payload', json(draft.payload, 'payload')),
    'condition',
    json(draft.condition, 'condition'),
  );
  return { body, errors };
}
