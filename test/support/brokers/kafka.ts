import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from '../free-port';
import { ROOT, runToEnd, spawnServer, waitUntil } from './process-group';

/**
 * A single-node Apache Kafka in KRaft mode (broker and controller in one JVM) on loopback,
 * every replication factor 1. Jars from Maven Central in .tools/kafka (scripts/install-tools.sh).
 */
export interface KafkaServer { brokers: string[]; pgid: number }

const CLASSPATH = join(ROOT, '.tools', 'kafka', 'libs', '*');
// A small heap, and the quick JIT tier only: the tests send a few records, a start costs seconds.
const JVM = ['-Xms64m', '-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:-UsePerfData', '-Djava.awt.headless=true'];

const propertiesOf = (dir: string, port: number, controllerPort: number) => `
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${controllerPort}
controller.listener.names=CONTROLLER
listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}
advertised.listeners=PLAINTEXT://127.0.0.1:${port}
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=${join(dir, 'data')}
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
auto.create.topics.enable=true
group.initial.rebalance.delay.ms=0
`;

const answers = async (brokers: string[]) => {
  const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING, connectionTimeout: 1000, retry: { retries: 0 } }).admin();
  try {
    await admin.connect();
    await admin.fetchTopicMetadata({ topics: [] });
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
};

export const startKafka = async (dir: string): Promise<KafkaServer> => {
  const [port, controllerPort] = [await freePort(), await freePort()];
  const properties = join(dir, 'server.properties');
  const brokers = [`127.0.0.1:${port}`];
  mkdirSync(dir, { recursive: true });
  writeFileSync(properties, propertiesOf(dir, port, controllerPort));
  await runToEnd('kafka-format', dir, 'java', [...JVM, '-cp', CLASSPATH, 'kafka.tools.StorageTool', 'format',
    '--cluster-id', randomBytes(16).toString('base64url'), '--config', properties]);
  const child = spawnServer('kafka', dir, 'java', [...JVM, '-cp', CLASSPATH, 'kafka.Kafka', properties]);
  await waitUntil('kafka', dir, child, () => answers(brokers), 60_000);
  return { brokers, pgid: child.pid! };
};
