import * as t from 'io-ts';
import { arrayOf, checked, closed, codePoints, described, NonEmptyString } from '../../kernel/closed';
import { templatedJson } from '../../kernel/templated-json';
import { contentTypeKey, TriggerPolicy } from './policy';
import { MAX_TRIGGER_BYTES } from '../../kernel/limits';
import { DESTINATIONS } from '../../destinations/registry';
import { ConditionCodec } from '../conditions/check';

export const SIGNALS = ['pre_save', 'post_save', 'pre_delete', 'post_delete'] as const;
export type SignalName = (typeof SIGNALS)[number];
/** Django's limit for `ContentType.app_label` and `.model`; keeps dispatch search attributes small. */
export const MAX_CONTENT_TYPE_PART = 100;
/** A trigger id: a UUID, in any case. */
export const TRIGGER_ID = '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$';
const TRIGGER_ID_RE = new RegExp(TRIGGER_ID);
export const isTriggerId = (s: unknown): s is string => typeof s === 'string' && TRIGGER_ID_RE.test(s);

export interface ContentType {
  app_label: string;
  model_name: string;
}

export const ORDERINGS = ['none', 'per_instance'] as const;
/** `per_instance`: one instance's signals are delivered in the order they were accepted. */
export type Ordering = (typeof ORDERINGS)[number];
/** The `ordering` a definition keeps: only `per_instance` (any other value is the default, `none`). */
export const keptOrdering = (ordering: unknown): { ordering?: 'per_instance' } => (ordering === 'per_instance' ? { ordering } : {});

type Decoded<P extends t.Props> = { [K in keyof P]: t.TypeOf<P[K]> };
type FieldCodecs = ReturnType<typeof triggerFieldCodecs>;
type Optional = Decoded<FieldCodecs['optional']>;

/**
 * A trigger as the user defines it: what its codec decodes (triggerFieldCodecs), normalised: the
 * action lists always present; `ordering` kept only when `per_instance` (`none` is the default,
 * so triggers made before it read the same); no `id`.
 */
export type TriggerDefinition = Decoded<FieldCodecs['required']> &
  Pick<Required<Optional>, 'webhooks' | 'msg_broker_queues'> &
  Partial<Pick<Optional, 'payload' | 'condition'>> & { ordering?: 'per_instance' };

/** A decoded request body: the definition plus the `id` a client may send back. */
export interface TriggerInput {
  id?: string;
  definition: TriggerDefinition;
}

export const READ_ONLY_FIELDS = ['id', 'version', 'created_at', 'updated_at', 'deactivated_reason'] as const;

/** An `app_label` or `model_name`, in triggers and in signals alike. */
export const ContentTypePart = checked(NonEmptyString, 'ContentTypePart', (s) =>
  codePoints(s) > MAX_CONTENT_TYPE_PART ? `must be at most ${MAX_CONTENT_TYPE_PART} characters` : undefined,
);

export const SignalName = new t.Type<SignalName, SignalName, unknown>(
  'SignalName',
  (u): u is SignalName => SIGNALS.includes(u as SignalName),
  (u, c) => (SIGNALS.includes(u as SignalName) ? t.success(u as SignalName) : t.failure(u, c, `must be one of ${SIGNALS.join(', ')}`)),
  t.identity,
);

export const TriggerId = checked(described(t.string, 'must be a string'), 'TriggerId', (s) =>
  isTriggerId(s) ? undefined : 'must be a trigger id (UUID)',
);

const OrderingIn = new t.Type<Ordering, Ordering, unknown>(
  'Ordering',
  (u): u is Ordering => ORDERINGS.includes(u as Ordering),
  (u, c) => (ORDERINGS.includes(u as Ordering) ? t.success(u as Ordering) : t.failure(u, c, `must be one of ${ORDERINGS.join(', ')}`)),
  t.identity,
);

/** Signals without repeats; the error names the repeated item. */
const uniqueSignals = (item: t.Type<{ signal: SignalName }, { signal: SignalName }, unknown>) =>
  new t.Type<{ signal: SignalName }[], { signal: SignalName }[], unknown>(
    'Array<ConfigSignal>',
    (u): u is { signal: SignalName }[] => Array.isArray(u),
    (u, c) => {
      const result = arrayOf(item, 1).validate(u, c);
      if (result._tag === 'Left') return result;
      const seen = new Set<string>();
      const errors: t.ValidationError[] = [];
      result.right.forEach((s, i) => {
        if (seen.has(s.signal)) {
          const ctx = t.appendContext(t.appendContext(c, String(i), item, s), 'signal', SignalName, s.signal);
          errors.push({ value: s.signal, context: ctx, message: `duplicate signal ${s.signal}` });
        }
        seen.add(s.signal);
      });
      return errors.length > 0 ? t.failures(errors) : result;
    },
    t.identity,
  );

const bytesOf = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? '');

/** A definition over MAX_TRIGGER_BYTES, named by its largest field (each attempt reads it back). */
const sizeProblem = (d: TriggerDefinition) => {
  const total = bytesOf(d);
  if (total <= MAX_TRIGGER_BYTES) return undefined;
  const [field, value] = Object.entries(d).reduce((a, b) => (bytesOf(b[1]) > bytesOf(a[1]) ? b : a));
  return { field, value: value as unknown, message: `makes the trigger ${total} bytes as JSON; at most ${MAX_TRIGGER_BYTES}` };
};

/** The field codecs of a trigger body, checking everything the config constrains. */
const triggerFieldCodecs = (policy: TriggerPolicy) => {
  const ConfigSignal = closed('ConfigSignal', { signal: SignalName }, {});
  const ContentTypeItem = checked(
    closed('ContentType', { app_label: ContentTypePart, model_name: ContentTypePart }, {}),
    'ContentType',
    (ct) =>
      policy.allowedContentTypes === undefined || policy.allowedContentTypes.has(contentTypeKey(ct.app_label, ct.model_name))
        ? undefined
        : `${ct.app_label}.${ct.model_name} is not in allowed_content_types`,
  );
  const required = {
    config_signals: uniqueSignals(ConfigSignal),
    content_types: arrayOf(ContentTypeItem, 1),
    active: described(t.boolean, 'must be true or false'),
  };
  const { webhook, broker } = DESTINATIONS;
  const optional = {
    webhooks: arrayOf(webhook.codec(policy), 0, webhook.maxPerTrigger),
    msg_broker_queues: arrayOf(broker.codec(policy), 0, broker.maxPerTrigger),
    payload: templatedJson(policy.allowedDynamicPaths),
    condition: ConditionCodec,
    ordering: OrderingIn,
    id: TriggerId,
  };
  return { required, optional };
};

const IGNORED = READ_ONLY_FIELDS.filter((f) => f !== 'id');

/**
 * A JSON merge patch's own shape, checked before it is applied (and before If-Match): each
 * field it sets must be valid; `null` may remove an optional field.
 */
export const buildTriggerPatchCodec = (policy: TriggerPolicy) => {
  const { required, optional } = triggerFieldCodecs(policy);
  return closed(
    'TriggerPatch',
    {},
    { ...required, ...optional },
    { ignored: IGNORED, nullable: ['webhooks', 'msg_broker_queues', 'payload', 'condition', 'ordering', 'id'] },
  );
};

/** The codec of a trigger request body, checking everything the config constrains. */
export const buildTriggerInputCodec = (policy: TriggerPolicy) => {
  const { required, optional } = triggerFieldCodecs(policy);
  const Body = closed('Trigger', required, optional, { ignored: IGNORED, nullable: ['payload', 'condition'] });
  return new t.Type<TriggerInput, TriggerInput, unknown>(
    'TriggerInput',
    (_u): _u is TriggerInput => true,
    (u, c) => {
      const result = Body.validate(u, c);
      if (result._tag === 'Left') return result;
      const { id, webhooks, msg_broker_queues, payload, condition, ordering, ...rest } = result.right;
      const definition: TriggerDefinition = {
        ...rest,
        webhooks: webhooks ?? [],
        msg_broker_queues: msg_broker_queues ?? [],
        ...(payload === undefined ? {} : { payload }),
        ...(condition === undefined ? {} : { condition }),
        ...keptOrdering(ordering),
      };
      const oversize = sizeProblem(definition);
      if (oversize) return t.failure(oversize.value, t.appendContext(c, oversize.field, t.unknown, oversize.value), oversize.message);
      return t.success(id === undefined ? { definition } : { id, definition });
    },
    t.identity,
  );
};
