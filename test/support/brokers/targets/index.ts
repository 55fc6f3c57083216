import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SUPPORTED_BROKER_TYPES } from '../../../../src/destinations/brokers/registry';
import type { BrokerServers } from '../index';
import type { BrokerTarget, TargetServers, TestedBrokerType } from '../target';

export type { BrokerConfig, BrokerTarget, Consumed, TargetServers, TestedBrokerType } from '../target';

/**
 * Every broker type the source registers, as the tests know it, in the registry's order. Read
 * from the type's file by name, so that a new type needs no line here (a unit test,
 * test/unit/broker-test-targets.test.ts, says which file is missing or names no type).
 */
export const TESTED_TYPES: ReadonlyArray<TestedBrokerType & { readonly type: string }> = SUPPORTED_BROKER_TYPES.map((type) => {
  const file = join(__dirname, `${type}.ts`);
  if (!existsSync(file)) throw new Error(`no test target for broker type ${type}: add ${file}`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return { ...(require(file) as { default: TestedBrokerType }).default, type };
});

const byType = new Map(TESTED_TYPES.map((t) => [t.type, t]));

export const testedType = (type: string) => {
  const tested = byType.get(type);
  if (!tested) throw new Error(`no test target for broker type ${type}`);
  return tested;
};

/** A fresh target on each broker type's real server (the shared ones, or `servers`). */
export const BROKER_TARGETS: Readonly<Record<string, (servers?: TargetServers) => Promise<BrokerTarget>>> = Object.fromEntries(
  TESTED_TYPES.map((t) => [t.type, t.open]),
);

/** The conn_details key that says where a broker type connects, pointed at a loopback port. */
export const pointedAt = (type: string, port: number): Record<string, string> => {
  const { key, at } = testedType(type).address;
  return { [key]: at('127.0.0.1', port) };
};

/** The process group serving a broker type (the AWS types share moto's), e.g. to SIGSTOP it in an outage test. */
export const processGroupOf = (servers: BrokerServers, type: string): number => {
  const { server } = testedType(type);
  if (server === undefined) throw new Error(`no private server for broker type ${type}`);
  return servers[server].pgid;
};
