/**
 * The OpenAPI description of each broker type's keys, from the table the publishers read them
 * by (src/destinations/broker-kit/settings-keys.ts), and of what a trigger's `msg_broker_queues` entry may set
 * on each configured broker.
 */
import type { BrokerKeys, KeyUse, SettingsKey } from '../broker-kit/settings-keys';
import { BROKER_KEYS, SUPPORTED_BROKER_TYPES as BROKER_TYPES } from './registry';
import type { BrokerPolicy } from './policy';
import { MAX_QUEUES_PER_TRIGGER } from '../../kernel/limits';
import { entryPayloadSchema, Schema, SHOWN_STRINGS, stringMapSchema, timeoutSchema } from '../port/openapi';
import { SECRET_PLACEHOLDER } from './preview';

export const BROKER_TYPES_SCHEMA = 'BrokerTypes';
/** The component that describes one broker type's keys. */
export const brokerTypeSchemaName = (type: string) => `BrokerType.${type}`;
const refTo = (name: string) => `#/components/schemas/${name}`;

const USE: Record<KeyUse, string> = {
  secret: 'Holds a credential: give it as a dynamic value ({{ env.… }}, {{ secrets.… }}), resolved only in the worker at each attempt',
  'per-message': 'Often a template over the instance, e.g. {{ instance.id }}',
};

const ADDRESS =
  "Says where messages go: a trigger may set it only where the broker's trigger_overrides lists it; " +
  'a host a trigger set (or a template over the instance) must then be public while allow_private_targets is off, checked when written and before each connection';

const keySchema = (k: SettingsKey): Schema => ({
  type: 'string',
  description: [
    k.description,
    k.requiredUnless && `Required unless ${k.requiredUnless} is given`,
    k.use && USE[k.use],
    k.format && `Must be ${k.format}: checked when written if literal, else once rendered`,
    k.address && ADDRESS,
  ]
    .filter(Boolean)
    .join('. '),
  ...(k.address ? { 'x-address': k.address } : {}),
  ...(k.default !== undefined ? { default: k.default } : {}),
});

const sectionSchema = (keys: BrokerKeys[keyof BrokerKeys], description: string): Schema => {
  const required = Object.entries(keys)
    .filter(([, k]) => k.required === true)
    .map(([name]) => name);
  return {
    type: 'object',
    description,
    ...(required.length > 0 ? { required } : {}),
    properties: Object.fromEntries(Object.entries(keys).map(([name, k]) => [name, keySchema(k)])),
    additionalProperties: { type: 'string', description: 'Read by no publisher: ignored' },
  };
};

const brokerTypeSchema = (type: string, keys: BrokerKeys): Schema => ({
  type: 'object',
  title: type,
  description:
    `broker_type ${type}: the keys it reads from a configured broker (brokers.<name> in the config) once a ` +
    "msg_broker_queues entry's conn_details and parameters are merged over its conn_details and params. " +
    'Every value may hold {{ … }} templates (instance attributes, allow-listed dynamic values), rendered in the worker at each attempt',
  required: [
    'broker_type',
    ...(['conn_details', 'params'] as const).filter((s) => Object.values(keys[s]).some((k) => k.required === true)),
  ],
  properties: {
    broker_type: { const: type, description: 'In any case in the config' },
    conn_details: sectionSchema(keys.conn_details, 'Where and as whom to connect'),
    params: sectionSchema(keys.params, 'Where the message goes (parameters in a msg_broker_queues entry)'),
  },
});

/** `BrokerTypes` and one `BrokerType.<type>` per broker type, for `components.schemas`. */
export const brokerTypeSchemas = (): Record<string, Schema> => ({
  [BROKER_TYPES_SCHEMA]: {
    description:
      'The broker types this build publishes to, each with the keys it reads (required and optional). ' +
      "A trigger names a configured broker in msg_broker_queues[].name; its conn_details and parameters are merged over that broker's",
    oneOf: BROKER_TYPES.map((type) => ({ $ref: refTo(brokerTypeSchemaName(type)) })),
    discriminator: {
      propertyName: 'broker_type',
      mapping: Object.fromEntries(BROKER_TYPES.map((type) => [type, refTo(brokerTypeSchemaName(type))])),
    },
  },
  ...Object.fromEntries(BROKER_TYPES.map((type) => [brokerTypeSchemaName(type), brokerTypeSchema(type, BROKER_KEYS[type]!)])),
});

const keyList = (keys: ReadonlySet<string> | undefined) =>
  keys === undefined ? 'any key' : keys.size === 0 ? 'none' : [...keys].join(', ');

/** What `msg_broker_queues[].name` may be on a server with `policy`, and what a trigger may set on each. */
const brokerNameDescription = (policy: BrokerPolicy, names: readonly string[]) => {
  const each = names.map((name) => {
    const type = policy.brokerTypes?.get(name);
    const overrides = policy.brokerOverrides?.get(name);
    const params =
      overrides?.parameters === undefined && overrides && overrides.addressParameters.size > 0
        ? `any key but ${[...overrides.addressParameters].join(', ')}`
        : keyList(overrides?.parameters);
    const may = overrides && `; a trigger may set conn_details: ${keyList(overrides.connDetails)}; parameters: ${params}`;
    return `\n- \`${name}\`${type ? `: ${type}${may ?? ''}` : ''}`;
  });
  return `A broker named in the config (brokers):${each.join('')}\n\nThe keys each broker_type reads: ${refTo(BROKER_TYPES_SCHEMA)}`;
};

/** A queue entry's `conn_details` or `parameters`: merged over the named broker's, as far as its trigger_overrides allow. */
const queueOverrideDescription = (field: 'conn_details' | 'parameters') => {
  const [over, allowed] =
    field === 'conn_details'
      ? ['conn_details', 'none']
      : ['params', "any key that does not say where messages go (x-address in the broker type's keys)"];
  return (
    `Merged over the named broker's ${over} (these keys win): only the keys its trigger_overrides.${field} lists (default: ${allowed}). ` +
    `The keys each broker_type reads: ${refTo(BROKER_TYPES_SCHEMA)}. Values may hold {{ … }} templates (instance attributes, allow-listed dynamic values), rendered at delivery`
  );
};

/** The OpenAPI schema of a trigger's `msg_broker_queues` on this config's brokers. */
export const brokerQueuesSchema = (policy: BrokerPolicy): Schema => {
  const names = policy.brokerNames === undefined ? undefined : [...policy.brokerNames];
  if (names?.length === 0) return { type: 'array', maxItems: 0, description: 'No brokers are configured' };
  return {
    type: 'array',
    maxItems: MAX_QUEUES_PER_TRIGGER,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: names === undefined ? { type: 'string' } : { enum: names, description: brokerNameDescription(policy, names) },
        conn_details: { ...stringMapSchema, description: queueOverrideDescription('conn_details') },
        parameters: { ...stringMapSchema, description: queueOverrideDescription('parameters') },
        timeout_secs: timeoutSchema(policy.maxBrokerTimeoutSecs),
        payload: entryPayloadSchema('queue'),
      },
    },
  };
};

/** What a dry run shows of a queue action: the message and where it goes, no credentials. */
export const brokerViewSchemas = (): Record<string, Schema> => ({
  message: {
    type: 'object',
    required: ['broker', 'broker_type', 'conn_details', 'parameters', 'body', 'content_type', 'delivery_id'],
    properties: {
      broker: { type: 'string' },
      broker_type: { type: 'string' },
      conn_details: { ...SHOWN_STRINGS, description: `Merged and rendered; keys that hold credentials show "${SECRET_PLACEHOLDER}"` },
      parameters: {
        ...SHOWN_STRINGS,
        description: 'Merged and rendered: where the message goes (queue, exchange, routing_key, topic, channel, stream, …)',
      },
      body: { type: ['string', 'null'] },
      content_type: { type: 'string' },
      delivery_id: { type: 'string', description: 'Sent with the message (e.g. the AMQP messageId)' },
    },
  },
});
