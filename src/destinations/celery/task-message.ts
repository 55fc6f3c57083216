import type { OutboundMessage } from '../broker-kit/port';
import type { CelerySettings } from './settings';

/** A Celery task message, protocol 2, JSON serializer: what both transports carry. */
export interface TaskMessage {
  /** The task id: the delivery id, the same on every retry of the attempt. */
  readonly id: string;
  readonly headers: Readonly<Record<string, unknown>>;
  /** `[args, kwargs, embed]` as JSON text. */
  readonly body: string;
  readonly contentType: 'application/json';
  readonly contentEncoding: 'utf-8';
}

/** Celery's reprs are for its logs; a long payload is cut there, never in the body. */
const MAX_REPR = 1024;
const repr = (value: unknown) => {
  const text = JSON.stringify(value);
  return text.length > MAX_REPR ? `${text.slice(0, MAX_REPR - 3)}...` : text;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The rendered payload as the task's arguments: a JSON object is its keyword arguments
 * (`order_paid(order=42, status="paid")`); any other JSON value, or text, its one argument.
 */
export const taskArguments = (message: Pick<OutboundMessage, 'body' | 'contentType'>): [unknown[], Record<string, unknown>] => {
  if (message.contentType !== 'application/json') return [[message.body], {}];
  const value: unknown = JSON.parse(message.body);
  return isObject(value) ? [[], value] : [[value], {}];
};

const at = (now: number, secs: number | undefined) => (secs === undefined ? null : new Date(now + secs * 1000).toISOString());

/** The message for one attempt at `now` (ms): its eta and expiry count from then. */
export const taskMessage = (s: CelerySettings, message: OutboundMessage, now: number): TaskMessage => {
  const [args, kwargs] = taskArguments(message);
  return {
    id: message.deliveryId,
    headers: {
      lang: 'py',
      task: s.task,
      id: message.deliveryId,
      shadow: null,
      eta: at(now, s.countdownSecs),
      expires: at(now, s.expiresSecs),
      group: null,
      group_index: null,
      retries: 0,
      timelimit: [null, null],
      root_id: message.deliveryId,
      parent_id: null,
      argsrepr: repr(args),
      kwargsrepr: repr(kwargs),
      origin: 'action-triggers',
      ignore_result: false,
      ...(message.traceparent ? { traceparent: message.traceparent } : {}),
    },
    body: JSON.stringify([args, kwargs, { callbacks: null, errbacks: null, chain: null, chord: null }]),
    contentType: 'application/json',
    contentEncoding: 'utf-8',
  };
};
