import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from '../../../src/destinations/kafka/kafkajs';
import { freePorts } from '../free-port';
import { ROOT, runToEnd, spawnServer, waitUntil } from './process-group';

/**
 * A single-node Apache Kafka in KRaft mode (broker and controller in one JVM) on loopback,
 * every replication factor 1. Jars from Maven Central in .tools/kafka (scripts/install-tools.sh).
 */
export interface KafkaServer {
  brokers: string[];
  pgid: number;
}

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

/**
 * `kafka.tools.StorageTool format` costs a JVM start (~2 s). Its output (meta.properties and the
 * bootstrap checkpoint: cluster id, node id, feature levels; no ports or paths, as the quorum
 * voters are static) is made once into .tools/kafka/formatted and copied into each data dir.
 * Made in a private dir and renamed into place, as several test runs may share .tools.
 */
const formatted = async (): Promise<string> => {
  const template = join(ROOT, '.tools', 'kafka', 'formatted');
  if (existsSync(template)) return template;
  if (!existsSync(join(ROOT, '.tools', 'kafka', 'libs'))) throw new Error('no Kafka jars: run bash scripts/install-tools.sh');
  const work = mkdtempSync(`${template}-`);
  const properties = join(work, 'server.properties');
  writeFileSync(properties, propertiesOf(work, 0, 1));
  await runToEnd('kafka-format', work, 'java', [
    ...JVM,
    '-cp',
    CLASSPATH,
    'kafka.tools.StorageTool',
    'format',
    '--cluster-id',
    randomBytes(16).toString('base64url'),
    '--config',
    properties,
  ]);
  try {
    renameSync(join(work, 'data'), template);
  } catch {
    /* another run was first */
  }
  rmSync(work, { recursive: true, force: true });
  return template;
};

export const startKafka = async (dir: string): Promise<KafkaServer> => {
  const [port, controllerPort] = (await freePorts(2)) as [number, number];
  const properties = join(dir, 'server.properties');
  const brokers = [`127.0.0.1:${port}`];
  mkdirSync(dir, { recursive: true });
  writeFileSync(properties, propertiesOf(dir, port, controllerPort));
  cpSync(await formatted(), join(dir, 'data'), { recursive: true });
  const child = spawnServer('kafka', dir, 'java', [...JVM, '-cp', CLASSPATH, 'kafka.Kafka', properties]);
  await waitUntil('kafka', dir, child, () => answers(brokers), 60_000);
  return { brokers, pgid: child.pid! };
};
