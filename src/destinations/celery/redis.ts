import { randomUUID } from 'node:crypto';
import type { BrokerConnection } from '../broker-kit/port';
import { openRedis } from '../redis/client';
import type { CelerySettings } from './settings';
import { taskMessage } from './task-message';

/**
 * Task messages over Redis, as kombu's Redis transport stores them: a JSON envelope (the body in
 * base64, the headers, the delivery properties) pushed on the list named as the queue, which
 * the worker pops from. Taken once LPUSH answers; it lasts as long as Redis keeps its data
 * (persistence is the server's configuration).
 */
export const openRedisTasks = async (s: CelerySettings, signal: AbortSignal): Promise<BrokerConnection<CelerySettings>> => {
  const client = await openRedis({ url: s.url }, signal);
  return {
    broken: () => client.status === 'end',
    publish: async (target, message) => {
      const task = taskMessage(target, message, Date.now());
      const envelope = {
        body: Buffer.from(task.body).toString('base64'),
        'content-encoding': task.contentEncoding,
        'content-type': task.contentType,
        headers: task.headers,
        properties: {
          correlation_id: task.id,
          reply_to: '',
          delivery_mode: 2,
          delivery_info: { exchange: '', routing_key: target.queue },
          priority: 0,
          body_encoding: 'base64',
          // The transport's handle on this copy for its acknowledgement, not the task's id.
          delivery_tag: randomUUID(),
        },
      };
      await client.lpush(target.queue, JSON.stringify(envelope));
      return { brokerMessageId: task.id };
    },
    close: async () => {
      client.disconnect();
    },
  };
};
