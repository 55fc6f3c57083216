import type { Publisher } from '../broker-kit/port';
import { rabbitmqPublisher } from '../rabbitmq/publisher';
import { redisPublisher } from '../redis/publisher';
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
  // Its errors are its transport's: AMQP reply codes, or Redis reply errors.
  describeError: (e) => rabbitmqPublisher.describeError?.(e) ?? redisPublisher.describeError?.(e),
  connectionKey: (s) => s.url,
  connect: (s, signal) => (s.transport === 'amqp' ? openAmqpTasks(s, signal) : openRedisTasks(s, signal)),
};
