import type { BrokerKeys } from '../broker-kit/settings-keys';
import type { BrokerConnection, OutboundMessage, Publisher } from '../broker-kit/port';
import { reader } from '../broker-kit/settings';
import { ErrorShape, PublishFailure, token } from '../broker-kit/publish-error';
import {
  AWS_CONN,
  awsClientOptions,
  AwsConnection,
  awsPublisher,
  isJsonContentType,
  readAwsConnection,
  refusedByAws,
} from '../broker-kit/aws';
import { capAnswers } from '../broker-kit/answer-cap';

/** One bus (name or ARN), and the event's source and detail type. */
export interface EventBridgeSettings {
  aws: AwsConnection;
  eventBusName: string;
  source: string;
  detailType: string;
}

/** The keys an aws_eventbridge broker reads. */
const EVENTBRIDGE_KEYS = {
  conn_details: AWS_CONN,
  params: {
    event_bus_name: { default: 'default', address: 'destination', description: 'The event bus, by name or ARN' },
    source: { required: true, use: 'per-message', description: "The event's source, which rules match (e.g. shop.orders)" },
    detail_type: { required: true, use: 'per-message', description: "The event's detail-type, which rules match (e.g. order saved)" },
  },
} as const satisfies BrokerKeys;

const settings: Publisher<EventBridgeSettings>['settings'] = (connDetails, params) => {
  const r = reader(EVENTBRIDGE_KEYS, connDetails, params);
  const aws = readAwsConnection(r.conn);
  const eventBusName = r.params.optional('event_bus_name') ?? 'default';
  const source = r.params.required('source');
  const detailType = r.params.required('detail_type');
  return r.result({ aws, eventBusName, source, detailType });
};

/** A JSON body as its value (the event's detail nests it); a body that does not parse goes as its text. */
const payloadOf = (message: OutboundMessage): unknown => {
  if (!isJsonContentType(message.contentType)) return message.body;
  try {
    return JSON.parse(message.body) as unknown;
  } catch {
    return message.body;
  }
};

/**
 * An event's detail must be a JSON object, and EventBridge has no message attributes: the detail
 * is an envelope of the payload (a JSON body as its value, any other as a string) with the
 * delivery id, the content type and (tracing on) the trace context. Rules match `detail.payload.…`.
 */
export const eventDetail = (message: OutboundMessage) =>
  JSON.stringify({
    payload: payloadOf(message),
    delivery_id: message.deliveryId,
    content_type: message.contentType,
    ...(message.traceparent ? { traceparent: message.traceparent } : {}),
  });

/** Entry error codes worth another attempt; any other is the bus refusing this event for good. */
const RETRIED_ENTRY_CODES = new Set(['InternalFailure', 'InternalException', 'ThrottlingException', 'ServiceUnavailable']);

/** PutEvents answered, but refused the entry (a partial failure of one entry). */
class EntryFailed extends PublishFailure {
  constructor(
    code: string | undefined,
    readonly forGood: boolean,
  ) {
    super(`the event bus refused the event (${token(code) ?? 'no error code'})`);
  }
}

/** PutEvents with one entry per message; an entry the answer marks failed is a failed publish. */
const open = async (s: EventBridgeSettings): Promise<BrokerConnection<EventBridgeSettings>> => {
  const { EventBridgeClient, PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
  const client = capAnswers(new EventBridgeClient(awsClientOptions(s.aws)));
  return {
    broken: () => false,
    publish: async (target, message) => {
      const answer = await client.send(
        new PutEventsCommand({
          Entries: [
            { EventBusName: target.eventBusName, Source: target.source, DetailType: target.detailType, Detail: eventDetail(message) },
          ],
        }),
      );
      const entry = answer.Entries?.[0];
      if ((answer.FailedEntryCount ?? 0) > 0 || !entry?.EventId) {
        const code = entry?.ErrorCode;
        throw new EntryFailed(code, code !== undefined && !RETRIED_ENTRY_CODES.has(code));
      }
      return { brokerMessageId: entry.EventId };
    },
    close: async () => {
      client.destroy();
    },
  };
};

export const eventBridgePublisher = awsPublisher<EventBridgeSettings>({
  brokerType: 'aws_eventbridge',
  keys: EVENTBRIDGE_KEYS,
  refusedForGood: (e: ErrorShape) => (e instanceof EntryFailed ? e.forGood : refusedByAws(e)),
  settings,
  connect: open,
});
