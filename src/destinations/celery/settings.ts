import type { BrokerKeys } from '../broker-kit/settings-keys';
import type { Publisher } from '../broker-kit/port';
import { reader } from '../broker-kit/settings';

/** Where one task message goes, and what it asks of the worker. */
export interface CelerySettings {
  url: string;
  /** From the URL's scheme: RabbitMQ (amqp, amqps) or Redis (redis, rediss), as Celery's broker_url. */
  transport: 'amqp' | 'redis';
  task: string;
  queue: string;
  /** AMQP: '' is the default exchange, which routes by queue name. */
  exchange: string;
  routingKey: string;
  countdownSecs?: number;
  expiresSecs?: number;
  priority?: number;
}

const MAX_NAME_BYTES = 255;
/** Celery holds a task with an eta in the worker's memory: a countdown longer than this is a scheduler's job. */
const MAX_COUNTDOWN_SECS = 7 * 24 * 3600;

/** The keys a celery broker reads (see ../broker-kit/settings-keys.ts). */
export const CELERY_KEYS = {
  conn_details: {
    url: {
      required: true,
      use: 'secret',
      address: 'url',
      description:
        "Your Celery app's broker_url: amqp://user:password@host:port/vhost (RabbitMQ) or redis://:password@host:port/db (Redis)",
    },
  },
  params: {
    task: {
      required: true,
      format: `a task name, at most ${MAX_NAME_BYTES} bytes`,
      description:
        "The task's registered name (shop.tasks.order_paid). The rendered payload becomes its keyword arguments when it is a JSON object, else its one argument",
    },
    queue: {
      default: 'celery',
      format: `at most ${MAX_NAME_BYTES} bytes`,
      description: "The queue the worker consumes (Celery's default: celery)",
    },
    exchange: {
      format: `at most ${MAX_NAME_BYTES} bytes`,
      description: 'RabbitMQ only: publish to this exchange with routing_key (default: by queue name)',
    },
    routing_key: { format: `at most ${MAX_NAME_BYTES} bytes`, description: 'RabbitMQ only: with exchange (default: queue)' },
    countdown: {
      format: `seconds from 0 to ${MAX_COUNTDOWN_SECS}`,
      description: "Run the task no earlier than this long after the attempt (Celery's countdown, sent as the eta header)",
    },
    expires: {
      format: 'seconds, more than 0',
      description: "Discard the task unless it starts within this long after the attempt (Celery's expires)",
    },
    priority: {
      format: 'a whole number from 0 to 255',
      description: 'RabbitMQ only: the message priority (the queue needs x-max-priority)',
    },
  },
} as const satisfies BrokerKeys;

const TRANSPORTS: Readonly<Record<string, CelerySettings['transport']>> = {
  'amqp:': 'amqp',
  'amqps:': 'amqp',
  'redis:': 'redis',
  'rediss:': 'redis',
};

const schemeOf = (url: string) => /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0].toLowerCase();

const seconds = (text: string | undefined, min: number, max: number, exclusiveMin: boolean) => {
  if (text === undefined || text.includes('{{')) return { ok: true as const, value: undefined };
  const n = Number(text);
  const ok = text.trim() !== '' && Number.isFinite(n) && (exclusiveMin ? n > min : n >= min) && n <= max;
  return ok ? { ok: true as const, value: n } : { ok: false as const };
};

export const settings: Publisher<CelerySettings>['settings'] = (connDetails, params) => {
  const r = reader(CELERY_KEYS, connDetails, params);
  const url = r.conn.required('url');
  const scheme = schemeOf(url);
  const transport = scheme === undefined ? undefined : TRANSPORTS[scheme];
  if (r.literal(url) && transport === undefined)
    r.problem('conn_details.url', 'must be an amqp://, amqps://, redis:// or rediss:// URL (your Celery broker_url)');
  const names = {
    task: r.params.required('task'),
    queue: r.params.optional('queue') ?? 'celery',
    exchange: r.params.optional('exchange'),
    routing_key: r.params.optional('routing_key'),
  };
  for (const [key, value] of Object.entries(names))
    if (Buffer.byteLength(value ?? '') > MAX_NAME_BYTES) r.problem(`params.${key}`, `is longer than ${MAX_NAME_BYTES} bytes`);
  const countdown = seconds(r.params.optional('countdown'), 0, MAX_COUNTDOWN_SECS, false);
  if (!countdown.ok) r.problem('params.countdown', `must be a number of seconds from 0 to ${MAX_COUNTDOWN_SECS}`);
  const expires = seconds(r.params.optional('expires'), 0, Number.MAX_SAFE_INTEGER, true);
  if (!expires.ok) r.problem('params.expires', 'must be a number of seconds, more than 0');
  const priorityText = r.params.optional('priority');
  const priority = priorityText === undefined || !r.literal(priorityText) ? undefined : Number(priorityText);
  if (priority !== undefined && !(Number.isInteger(priority) && priority >= 0 && priority <= 255))
    r.problem('params.priority', 'must be a whole number from 0 to 255');
  if (transport === 'redis')
    for (const key of ['exchange', 'routing_key', 'priority'] as const)
      if (r.params.optional(key) !== undefined)
        r.problem(
          `params.${key}`,
          "is for RabbitMQ only: over Redis, Celery's transport reads the queue's list, with no exchange or priority",
        );
  return r.result({
    url,
    transport: transport ?? 'amqp',
    task: names.task,
    queue: names.queue,
    exchange: names.exchange ?? '',
    routingKey: names.routing_key ?? names.queue,
    ...(countdown.value === undefined ? {} : { countdownSecs: countdown.value }),
    ...(expires.value === undefined ? {} : { expiresSecs: expires.value }),
    ...(priority === undefined ? {} : { priority }),
  });
};
