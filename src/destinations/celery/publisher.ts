import type { Publisher } from '../broker-kit/port';
import { AMQP_REPLY } from '../rabbitmq/publisher';
import { replyClass } from '../redis/publisher';
import { openAmqpTasks } from './amqp';
import { openRedisTasks } from './redis';
import { CELERY_KEYS, type CelerySettings, settings } from './settings';

/**
 * Runs a Celery task: a task message (protocol 2, JSON) on the broker the team's Celery app
 * already uses, RabbitMQ or Redis, chosen by the URL's scheme. The task's id is the delivery id,
 * so a message sent again is recognisably the same task.
 */
export const celeryPublisher: Publisher<CelerySettings> = {
  brokerType: 'celery',
  keys: CELERY_KEYS,
  settings,
  describeError: (e) => {
    if (typeof e.code === 'number' && AMQP_REPLY[e.code]) return `refused it: ${e.code} ${AMQP_REPLY[e.code]}`;
    if (e.name === 'ReplyError') return `answered with an error${replyClass(e.message) ? ` (${replyClass(e.message)})` : ''}`;
    return undefined;
  },
  connectionKey: (s) => s.url,
  connect: (s, signal) => (s.transport === 'amqp' ? openAmqpTasks(s, signal) : openRedisTasks(s, signal)),
};
