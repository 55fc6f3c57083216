import type { PubSub, Topic } from '@google-cloud/pubsub';
import type { BrokerKeys } from '../broker-kit/settings-keys';
import type { BrokerConnection, Publisher } from '../broker-kit/port';
import { closeThenDestroy, socketsOf } from '../broker-kit/client-lifetime';
import { trackingSockets } from './grpc-sockets';
import { reader } from '../broker-kit/settings';
import { MAX_BROKER_ANSWER_BYTES } from '../../kernel/limits';

/**
 * A project and topic. Credentials: `conn_details.credentials_json` (a service account key,
 * usually from a dynamic value), or an emulator (`conn_details.emulator_host`, else the
 * `PUBSUB_EMULATOR_HOST` environment variable). Without either the settings are refused: the
 * client would otherwise look for credentials on the GCE metadata server.
 */
export interface PubSubSettings {
  project: string;
  topic: string;
  auth: { emulatorHost: string } | { credentials: Record<string, unknown> };
  orderingKey: string | undefined;
}

/** The keys a gcp_pubsub broker reads (see ../broker-kit/settings-keys.ts). */
const PUBSUB_KEYS = {
  conn_details: {
    project: { required: true, address: 'destination', description: 'The Google Cloud project' },
    topic: { required: true, description: "The topic's name in the project" },
    credentials_json: {
      requiredUnless: 'emulator_host (or the PUBSUB_EMULATOR_HOST environment variable)',
      use: 'secret',
      format: 'a service account key (JSON)',
      description: 'How the client authenticates: the service never asks a metadata server for credentials',
    },
    emulator_host: {
      address: 'host-ports',
      description: "host:port of a Pub/Sub emulator instead of Google's service (default: the PUBSUB_EMULATOR_HOST environment variable)",
    },
  },
  params: {
    ordering_key: { use: 'per-message', description: 'Messages with the same key are delivered in order' },
  },
} as const satisfies BrokerKeys;

const settings: Publisher<PubSubSettings>['settings'] = (connDetails, params) => {
  const r = reader(PUBSUB_KEYS, connDetails, params);
  const project = r.conn.required('project');
  const topic = r.conn.required('topic');
  const emulatorHost = r.conn.optional('emulator_host') ?? process.env.PUBSUB_EMULATOR_HOST;
  const json =
    emulatorHost === undefined
      ? r.conn.required('credentials_json', 'is required (or emulator_host): the service never asks a metadata server for credentials')
      : undefined;
  let credentials: Record<string, unknown> = {};
  if (json && r.literal(json)) {
    try {
      credentials = JSON.parse(json) as Record<string, unknown>;
    } catch {
      r.problem('conn_details.credentials_json', 'must be a service account key (JSON)');
    }
  }
  const auth = emulatorHost !== undefined ? { emulatorHost } : { credentials };
  return r.result({ project, topic, auth, orderingKey: r.params.optional('ordering_key') });
};

/** Publishes with the attributes `delivery-id` and `content-type`, and the ordering key if any. */
const open = async (s: PubSubSettings): Promise<BrokerConnection<PubSubSettings>> => {
  // Never probe the GCE metadata server (the auth library does unless told not to).
  process.env.METADATA_SERVER_DETECTION ??= 'none';
  const { PubSub: Client } = await import('@google-cloud/pubsub');
  // google-gax lifts gRPC's 4 MiB limit on answers; a publish's answer is a few ids.
  const bounded = { 'grpc.max_receive_message_length': MAX_BROKER_ANSWER_BYTES };
  const client: PubSub =
    'emulatorHost' in s.auth
      ? // universeDomain given: otherwise google-gax asks the auth library for it, which probes the metadata server.
        new Client({
          projectId: s.project,
          apiEndpoint: s.auth.emulatorHost,
          emulatorMode: true,
          universeDomain: 'googleapis.com',
          ...bounded,
        })
      : new Client({ projectId: s.project, credentials: s.auth.credentials as never, ...bounded });
  const sockets = socketsOf();
  // The emulator's address comes from the config: its connections are tracked (see grpc-sockets.ts).
  if ('emulatorHost' in s.auth) client.options.sslCreds = trackingSockets(client.options.sslCreds, sockets.add);
  const topics = new Map<string, Topic>();
  const topicOf = (name: string) => {
    let topic = topics.get(name);
    if (!topic) {
      topic = client.topic(name, { messageOrdering: true, batching: { maxMessages: 1, maxMilliseconds: 0 } });
      topics.set(name, topic);
    }
    return topic;
  };
  return {
    broken: () => false,
    publish: async (target, message) => {
      const topic = topicOf(target.topic);
      const attributes = {
        'delivery-id': message.deliveryId,
        'content-type': message.contentType,
        ...(message.traceparent ? { traceparent: message.traceparent } : {}),
      };
      try {
        const id = await topic.publishMessage({
          data: Buffer.from(message.body),
          attributes,
          ...(target.orderingKey ? { orderingKey: target.orderingKey } : {}),
        });
        return { brokerMessageId: id };
      } catch (e) {
        // A failed publish pauses its ordering key; the retry must be able to publish again.
        if (target.orderingKey) topic.resumePublishing(target.orderingKey);
        throw e;
      }
    },
    close: () => closeThenDestroy(() => client.close(), sockets.destroyAll),
  };
};

/** gRPC status codes by name (the client's numeric code; its `details` are the server's text). */
const GRPC_STATUS = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

export const pubsubPublisher: Publisher<PubSubSettings> = {
  brokerType: 'gcp_pubsub',
  keys: PUBSUB_KEYS,
  describeError: (e) =>
    typeof e.code === 'number' && typeof e.details === 'string' && GRPC_STATUS[e.code] ? `answered ${GRPC_STATUS[e.code]}` : undefined,
  settings,
  connectionKey: (s) => `${s.project} ${'emulatorHost' in s.auth ? s.auth.emulatorHost : String(s.auth.credentials.client_email ?? '')}`,
  connect: open,
};
