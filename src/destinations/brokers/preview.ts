import { publisherFor } from './registry';
import { BrokerGuard, BrokerMessage, brokerMessageOf, Brokers, brokerTargetProblem } from './channel';
import type { Prepared } from '../port/channel';
import type { Shown } from '../port/destination';
import type { BrokerQueue } from './queue';

/** What a dry run shows instead of a credential from the config or the trigger. */
export const SECRET_PLACEHOLDER = '(secret, not shown)';

export interface MessageView {
  broker: string;
  broker_type: string;
  /** The merged, rendered conn_details; keys that hold credentials are not shown. */
  conn_details: Record<string, string>;
  /** The merged, rendered parameters: where the message goes (queue, exchange, topic, stream, …). */
  parameters: Record<string, string>;
  body: string | null;
  content_type: string;
  delivery_id: string;
}

const isSecretKey = (brokerType: string, key: string): boolean => {
  const keys = publisherFor(brokerType)?.keys.conn_details;
  const entry = keys && Object.prototype.hasOwnProperty.call(keys, key) ? keys[key] : undefined;
  // A key the table does not know is shown only if the table says it is harmless: unknown means hidden.
  return entry === undefined || entry.use === 'secret';
};

/** A broker message as the dry run shows it: where it goes and what it carries, no credentials. */
export const brokerMessageView = (broker: string, m: BrokerMessage): MessageView => {
  const type = m.publisher.brokerType;
  const conn = Object.fromEntries(Object.entries(m.connDetails).map(([k, v]) => [k, isSecretKey(type, k) ? SECRET_PLACEHOLDER : v]));
  return {
    broker,
    broker_type: type,
    conn_details: conn,
    parameters: m.parameters,
    body: m.message.body,
    content_type: m.message.contentType,
    delivery_id: m.message.deliveryId,
  };
};

/** A queue action in a dry run: the message, where it goes, no credentials. */
export interface BrokerView extends Shown {
  readonly message: MessageView;
}

/** The message a prepared queue action would publish (its dynamic values masked), and what would stop it. */
export const brokerPreview = async (brokers: Brokers, guard: BrokerGuard, p: Prepared<BrokerQueue>): Promise<BrokerView> => {
  const m = brokerMessageOf(brokers, p);
  const refused = await brokerTargetProblem(brokers, p, m, guard);
  const message = brokerMessageView(p.action.name, m);
  return {
    message,
    warnings: p.rendered.warnings,
    ...(refused && refused.outcome !== 'delivered'
      ? { refused: refused.reason, error_type: refused.errorType, retried: refused.outcome === 'retry' }
      : {}),
  };
};
