import { jsonSafe, NotJson, unstorable } from './json-safe.ts';
import type { OutboxSignal, WireSignal } from './signal.ts';

/** The service's limits on a signal (src/model/signals/codecs.ts, src/kernel/limits.ts in its repository). */
const SIGNALS = new Set(['pre_save', 'post_save', 'pre_delete', 'post_delete']);
const SIGNAL_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const MAX_CONTENT_TYPE_PART = 100;
const MAX_INSTANCE_KEY = 256;
export const MAX_SIGNAL_BYTES = 256 * 1024;
/** The service takes 32 levels in a body; a batch's array and the signal take two. */
const MAX_ATTRIBUTES_DEPTH = 30;

/** A signal the service would refuse: thrown by `emit`, inside the caller's transaction, so the change fails with it. */
export class InvalidSignal extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`invalid signal: ${field}: ${reason}`);
    this.name = 'InvalidSignal';
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** As the Django app sends it: the primary key also as `pk` (its serializer's `pk`), so templates and conditions on `instance.pk` work for both. */
const withPk = (attributes: Record<string, unknown>) =>
  'pk' in attributes || !('id' in attributes) ? attributes : { pk: attributes.id, ...attributes };

const attributes = (value: unknown, field: string): Record<string, unknown> => {
  if (!isObject(value)) throw new InvalidSignal(field, "must be an object of the instance's attributes");
  try {
    return withPk(jsonSafe(value, field, MAX_ATTRIBUTES_DEPTH) as Record<string, unknown>);
  } catch (e) {
    if (e instanceof NotJson) throw new InvalidSignal(e.path, e.message.slice(e.path.length + 2));
    throw e;
  }
};

const storable = (text: string, field: string) => {
  const why = unstorable(text);
  if (why !== undefined) throw new InvalidSignal(field, why);
  return text;
};

const contentTypePart = (value: unknown, field: string) => {
  if (typeof value !== 'string' || value.trim() === '' || [...value].length > MAX_CONTENT_TYPE_PART)
    throw new InvalidSignal(field, `must be a non-blank string of at most ${MAX_CONTENT_TYPE_PART} characters`);
  return storable(value, field);
};

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const timestamp = (value: string | Date | undefined, now: Date) => {
  if (value === undefined) return now.toISOString();
  // A string is kept as written (its precision, its offset) once it reads as a time.
  if (typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value))) return value;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  throw new InvalidSignal('occurred_at', 'must be a Date or an RFC 3339 timestamp');
};

/** The instance a signal orders by, as the service finds it: `instance_key`, else `instance.pk`, else `instance.id`. */
export const instanceKeyOf = (s: Pick<WireSignal, 'instance' | 'instance_key'>): string | undefined => {
  for (const v of [s.instance_key, s.instance.pk, s.instance.id]) {
    if (typeof v === 'string' && v !== '') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return undefined;
};

/**
 * The signal with its defaults (`id`: the row's id; `occurred_at`: now), checked as the service
 * checks it, and its JSON text. Throws InvalidSignal.
 */
export const prepareSignal = (input: OutboxSignal, rowId: string, now: Date): { signal: WireSignal; json: string } => {
  if (!isObject(input)) throw new InvalidSignal('(signal)', 'must be an object');
  if (!SIGNALS.has(input.signal)) throw new InvalidSignal('signal', `must be one of ${[...SIGNALS].join(', ')}`);
  const id = input.id ?? rowId;
  if (typeof id !== 'string' || !SIGNAL_ID.test(id))
    throw new InvalidSignal('id', 'must be 1-128 characters of letters, digits, . _ : - (starting with a letter or digit)');
  if (
    input.instance_key !== undefined &&
    (typeof input.instance_key !== 'string' || input.instance_key.length < 1 || input.instance_key.length > MAX_INSTANCE_KEY)
  )
    throw new InvalidSignal('instance_key', `must be 1-${MAX_INSTANCE_KEY} characters`);
  const signal: WireSignal = {
    id,
    signal: input.signal,
    app_label: contentTypePart(input.app_label, 'app_label'),
    model_name: contentTypePart(input.model_name, 'model_name'),
    instance: attributes(input.instance, 'instance'),
    occurred_at: timestamp(input.occurred_at, now),
    ...(input.previous === undefined || input.previous === null ? {} : { previous: attributes(input.previous, 'previous') }),
    ...(input.instance_key === undefined ? {} : { instance_key: storable(input.instance_key, 'instance_key') }),
  };
  const json = JSON.stringify(signal);
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_SIGNAL_BYTES) {
    const field =
      signal.previous && JSON.stringify(signal.previous).length > JSON.stringify(signal.instance).length ? 'previous' : 'instance';
    throw new InvalidSignal(field, `makes the signal ${bytes} bytes as JSON; at most ${MAX_SIGNAL_BYTES}`);
  }
  return { signal, json };
};
