import { randomUUID } from 'node:crypto';
import type { BrokerServers } from './index';

/** One message as a consumer of the broker saw it. */
export interface Consumed {
  body: string;
  deliveryId: string | undefined;
  contentType: string | undefined;
  traceparent?: string | undefined;
}

/** A broker entry of our config: what a target publishes to. */
export interface BrokerConfig {
  broker_type: string;
  conn_details: Record<string, string>;
  params: Record<string, string>;
}

/**
 * A fresh destination on one of the test's real brokers: the broker config that publishes to
 * it (our config's names), and a real consumer that reads what arrived.
 */
export interface BrokerTarget {
  readonly type: string;
  readonly broker: BrokerConfig;
  /** Everything that arrived so far, after waiting until at least `count` did (or `timeoutMs`). */
  read(count: number, timeoutMs?: number): Promise<Consumed[]>;
  close(): Promise<void>;
}

/** Where the targets live: the shared test servers, or private ones (a bench, an outage test). */
export type TargetServers = BrokerServers & { rabbitUrl?: string };

/**
 * One broker type as the tests know it: one file each in targets/, named as its broker_type,
 * so that a new type is one new file and every list of types in the tests is derived from these.
 */
export interface TestedBrokerType {
  /** A fresh target on the type's real server: the shared test servers, or `servers`. */
  open(servers?: TargetServers): Promise<BrokerTarget>;
  /** Which of the servers startBrokers starts serves it (an outage test stops its process group); RabbitMQ's is shared by all test files. */
  readonly server?: keyof BrokerServers;
  /** The conn_details key that says where it connects, and that key's value for a host and port. */
  readonly address: { readonly key: string; at(host: string, port: number): string };
  /** Every key of it that the source must mark as an address (a host, URL, endpoint, topic ARN or project). */
  readonly addressKeys: readonly string[];
  /** The address key at a private host in a spelling a naive check would miss; test/integration/brokers/broker-target-guard.test.ts runs the types that have one. */
  readonly privateSpelling?: (port: number) => string;
  /** Destinations on the same broker that the broker refuses, for test/integration/brokers/publishers-isolation.test.ts. */
  readonly refused?: ReadonlyArray<{ readonly what: string; broker(good: BrokerConfig): BrokerConfig | Promise<BrokerConfig> }>;
  /** Test files that do not run this type yet, though a list derived for them would take it. */
  readonly notYetIn?: ReadonlyArray<'brokers-outage-dispatch'>;
}

export const unique = (prefix: string) => `${prefix}-${randomUUID()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `pull` until `count` messages are in, or the time is up. */
export const collect = async (pull: () => Promise<Consumed[]>, count: number, timeoutMs: number, into: Consumed[]) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    into.push(...(await pull()));
    if (into.length >= count || Date.now() >= deadline) return [...into];
    await sleep(100);
  }
};
