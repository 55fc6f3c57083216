import type { BrokerConnection } from '../broker-kit/port';
import { confirmedPublish, openAmqp } from '../rabbitmq/connection';
import type { CelerySettings } from './settings';
import { taskMessage } from './task-message';

/**
 * Task messages over AMQP, as Celery's kombu sends them: persistent, on confirm channels,
 * resolved once the broker confirmed. A queue reached through the default exchange is made to
 * exist before its first message, so a worker started later still finds it: looked up first,
 * declared durable (as Celery declares its queues) only when missing, so a queue the team
 * declared with its own arguments (x-max-priority, quorum) is used as it is.
 */
export const openAmqpTasks = async (s: CelerySettings, signal: AbortSignal): Promise<BrokerConnection<CelerySettings>> => {
  const amqp = await openAmqp(s.url, signal);
  const known = new Set<string>();
  const ensureQueue = async (queue: string) => {
    if (known.has(queue)) return;
    try {
      await amqp.channels.use((channel) => channel.checkQueue(queue));
    } catch (e) {
      if ((e as { code?: unknown }).code !== 404) throw e;
      await amqp.channels.use((channel) => channel.assertQueue(queue, { durable: true }));
    }
    known.add(queue);
  };
  return {
    broken: amqp.broken,
    publish: async (target, message) => {
      if (target.exchange === '') await ensureQueue(target.queue);
      const task = taskMessage(target, message, Date.now());
      await amqp.channels.use((channel) =>
        confirmedPublish(channel, target.exchange, target.routingKey, Buffer.from(task.body), {
          persistent: true,
          contentType: task.contentType,
          contentEncoding: task.contentEncoding,
          correlationId: task.id,
          messageId: task.id,
          headers: task.headers,
          ...(target.priority === undefined ? {} : { priority: target.priority }),
        }),
      );
      return { brokerMessageId: task.id };
    },
    close: amqp.close,
  };
};
