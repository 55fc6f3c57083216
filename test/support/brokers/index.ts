import { join } from 'node:path';
import { KafkaServer, startKafka } from './kafka';
import { MotoServer, startMoto } from './moto';
import { killGroup } from './process-group';
import { PubSubServer, startPubSub } from './pubsub';
import { RedisServer, startRedis } from './redis';

/** The broker servers the publishers' tests talk to (started once by the jest global setup). */
export interface BrokerServers {
  kafka: KafkaServer;
  redis: RedisServer;
  moto: MotoServer;
  pubsub: PubSubServer;
}

const STARTERS: { [K in keyof BrokerServers]: (dir: string) => Promise<BrokerServers[K]> } = {
  kafka: startKafka,
  redis: startRedis,
  moto: startMoto,
  pubsub: startPubSub,
};

/**
 * One of the servers alone, in `<dir>/<kind>` (a bench measures one broker without the others
 * taking CPU). SQS and SNS both live on `moto`; RabbitMQ is `startRabbit` (../rabbitmq).
 */
export const startBroker = <K extends keyof BrokerServers>(kind: K, dir: string): Promise<BrokerServers[K]> =>
  STARTERS[kind](join(dir, kind));

export const stopBroker = (server: { pgid: number }) => killGroup(server.pgid);

/** Starts all four at once, each in its own subdirectory; if one fails, the others are stopped. */
export const startBrokers = async (dir: string): Promise<BrokerServers> => {
  const started = await Promise.allSettled([
    startBroker('kafka', dir),
    startBroker('redis', dir),
    startBroker('moto', dir),
    startBroker('pubsub', dir),
  ]);
  const [kafka, redis, moto, pubsub] = started;
  if (kafka.status === 'fulfilled' && redis.status === 'fulfilled' && moto.status === 'fulfilled' && pubsub.status === 'fulfilled') {
    return { kafka: kafka.value, redis: redis.value, moto: moto.value, pubsub: pubsub.value };
  }
  for (const s of started) if (s.status === 'fulfilled') stopBroker(s.value);
  const reasons = started.flatMap((s) =>
    s.status === 'rejected' ? [String(s.reason instanceof Error ? s.reason.message : s.reason)] : [],
  );
  throw new Error(`broker servers did not start: ${reasons.join('; ')}`);
};

export const stopBrokers = (b: BrokerServers) => {
  for (const s of [b.kafka, b.redis, b.moto, b.pubsub]) stopBroker(s);
};
