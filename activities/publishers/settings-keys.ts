/**
 * The keys each broker type reads from a broker's `conn_details` and `params` (a trigger's
 * `parameters`), after a `msg_broker_queues` entry's keys are merged over the configured
 * broker's. One table: the publishers' settings readers read only these keys
 * (activities/publishers/settings.ts), and the OpenAPI document describes them. Pure data.
 *
 * Every value may hold `{{ … }}` templates, rendered in the worker at each attempt: instance
 * attributes and the allow-listed dynamic values. A key's `format` is checked when the config
 * loads and when a trigger is written only if its value is a literal; a templated one is checked
 * once rendered.
 */

/**
 * A key that says where messages go: a host, URL, endpoint, or the name of a queue, topic or
 * project the worker's credentials reach. A trigger may set one only where the broker's
 * `trigger_overrides` lists it (activities/publishers/addresses.ts reads the hosts out of it):
 * - `url`: a URL whose host the worker connects to;
 * - `host`, `port`: the host (or port) the worker connects to;
 * - `host-ports`: `host:port`, comma-separated;
 * - `destination`: where messages go on the configured connection (no host of its own).
 */
export type AddressKind = 'url' | 'host' | 'port' | 'host-ports' | 'destination';

/** What a value typically is, beyond a literal. */
export type KeyUse =
  /** Holds a credential: give it as a dynamic value (`{{ env.… }}`, `{{ secrets.… }}`), resolved only in the worker. */
  | 'secret'
  /** Often a template over the instance (`{{ instance.id }}`), so that it differs per message. */
  | 'per-message';

export interface SettingsKey {
  readonly description: string;
  /** Required after merging, always. */
  readonly required?: true;
  /** Required after merging unless this (another key, in words) is given. */
  readonly requiredUnless?: string;
  readonly use?: KeyUse;
  /** The value's format, checked once it is a literal. */
  readonly format?: string;
  /** What an absent key means. */
  readonly default?: string;
  /** Set when the key says where messages go (see AddressKind). */
  readonly address?: AddressKind;
}

/** `conn_details`: where and as whom to connect; `params`: where the message goes. */
export interface BrokerKeys {
  readonly conn_details: Readonly<Record<string, SettingsKey>>;
  readonly params: Readonly<Record<string, SettingsKey>>;
}

export type KeySection = keyof BrokerKeys;

const AWS_CONN = {
  region_name: { required: true, description: 'The AWS region, e.g. eu-west-1. Never looked up' },
  aws_access_key_id: { required: true, use: 'secret', description: 'Static credentials: the service never reads them from its environment or a metadata endpoint' },
  aws_secret_access_key: { required: true, use: 'secret', description: 'The secret of aws_access_key_id' },
  aws_session_token: { use: 'secret', description: 'For temporary credentials' },
  endpoint_url: { address: 'url', description: 'An endpoint URL instead of AWS\'s (e.g. a local SQS/SNS)' },
} as const satisfies Record<string, SettingsKey>;

const MESSAGE_GROUP_ID = { use: 'per-message', description: 'The message group; required when the target is FIFO (its name ends in .fifo)' } as const satisfies SettingsKey;

export const BROKER_KEYS = {
  rabbitmq: {
    conn_details: {
      url: { use: 'secret', address: 'url', description: 'amqp://user:password@host:port/vhost, instead of host, port, username, password and vhost' },
      host: { default: '127.0.0.1', address: 'host', description: 'Without url' },
      port: { default: '5672', address: 'port', description: 'Without url' },
      username: { description: 'Without url' },
      password: { use: 'secret', description: 'Without url' },
      vhost: { description: 'Without url (default: the broker\'s default vhost)' },
    },
    params: {
      queue: { requiredUnless: 'exchange or routing_key', format: 'at most 255 bytes',
        description: 'Published through the default exchange to this queue (declared durable before the first message)' },
      exchange: { format: 'at most 255 bytes', description: 'Published to this exchange with routing_key (default: the default exchange)' },
      routing_key: { format: 'at most 255 bytes', description: 'With exchange (default: queue)' },
    },
  },
  kafka: {
    conn_details: {
      bootstrap_servers: { required: true, address: 'host-ports', format: 'host:port, comma-separated', description: 'Brokers to bootstrap from' },
      client_id: { default: 'action-triggers', description: 'The Kafka client id' },
    },
    params: {
      topic: { required: true, description: 'The topic' },
      key: { use: 'per-message', description: 'The record key: one entity\'s records go to one partition, in order' },
    },
  },
  redis: {
    conn_details: {
      url: { requiredUnless: 'host', use: 'secret', address: 'url', description: 'redis://user:password@host:port/db, instead of host, port, db, username and password' },
      host: { requiredUnless: 'url', address: 'host', description: 'Without url' },
      port: { default: '6379', address: 'port', format: 'a port number', description: 'Without url' },
      db: { default: '0', format: 'a whole number', description: 'Without url' },
      username: { description: 'Without url' },
      password: { use: 'secret', description: 'Without url' },
    },
    params: {
      channel: { requiredUnless: 'stream', description: 'PUBLISH to this channel (exactly one of channel and stream)' },
      stream: { requiredUnless: 'channel', description: 'XADD to this stream, with the fields body, delivery-id and content-type: durable (exactly one of channel and stream)' },
    },
  },
  aws_sqs: {
    conn_details: AWS_CONN,
    params: {
      queue_url: { requiredUnless: 'queue_name', address: 'destination', description: 'The queue\'s URL (preferred over queue_name)' },
      queue_name: { requiredUnless: 'queue_url', description: 'The queue by name, looked up once per connection' },
      message_group_id: MESSAGE_GROUP_ID,
    },
  },
  aws_sns: {
    conn_details: AWS_CONN,
    params: {
      topic_arn: { required: true, address: 'destination', description: 'The topic' },
      message_group_id: MESSAGE_GROUP_ID,
    },
  },
  gcp_pubsub: {
    conn_details: {
      project: { required: true, address: 'destination', description: 'The Google Cloud project' },
      topic: { required: true, description: 'The topic\'s name in the project' },
      credentials_json: { requiredUnless: 'emulator_host (or the PUBSUB_EMULATOR_HOST environment variable)', use: 'secret',
        format: 'a service account key (JSON)', description: 'How the client authenticates: the service never asks a metadata server for credentials' },
      emulator_host: { address: 'host-ports', description: 'host:port of a Pub/Sub emulator instead of Google\'s service (default: the PUBSUB_EMULATOR_HOST environment variable)' },
    },
    params: {
      ordering_key: { use: 'per-message', description: 'Messages with the same key are delivered in order' },
    },
  },
} as const satisfies Record<string, BrokerKeys>;

export type BrokerType = keyof typeof BROKER_KEYS;

/** Every broker type the config may name (matched case-insensitively, kept in lower case). */
export const BROKER_TYPES = Object.keys(BROKER_KEYS) as BrokerType[];
