import { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PostgresServer, startPostgres, stopPostgres } from './brokers/postgres';
import { TEST_RETRY } from './dispatch-harness';
import { makeTestNetwork, TestNetwork } from './netns';
import { Receiver, startReceiver } from './receiver';
import { ServerProcess, startServerProcess, stopServerProcess } from './server-process';
import { testServers } from './servers';
import { forwardTcp } from './tcp-forward';
import { tempDir } from './test-app';
import { killProcess, startWorkerProcess } from './worker-process';

/**
 * Two hosts (network namespaces on a bridge), each running the API and a worker with its own
 * data folder (its read model), sharing one PostgreSQL store and one Temporal server, reached
 * on the bridge as the receiver is (test/integration/processes/two-hosts*.test.ts).
 */
export const KEY = 'two-hosts-key';

export interface Host {
  name: string;
  exec: string[];
  dir: string;
  api?: ServerProcess;
  worker?: ChildProcess;
}

export interface TwoHosts {
  net: TestNetwork;
  pg: PostgresServer;
  temporal: Awaited<ReturnType<typeof forwardTcp>>;
  rx: Receiver;
  /** What both hosts' processes run with (the config file, Temporal, the store). */
  env: Record<string, string>;
  hosts: Host[];
}

export const headers = { 'content-type': 'application/json', authorization: `Bearer ${KEY}` };

/** Starts the API of host `h` (on `address`, its namespace's). */
export const startApi = async (h: Host, address: string, env: Record<string, string>) => {
  h.api = await startServerProcess({ ...env, DATA_DIR: h.dir, HOST: address }, 60_000, ['--role=api'], h.exec);
};

export const relayOf = async (h: Host) => {
  const ready = (await (await fetch(`${h.api!.url}/readyz`, { signal: AbortSignal.timeout(2000) })).json()) as {
    dispatch?: { relay?: string };
  };
  return ready.dispatch?.relay;
};

export const call = async (h: Host, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${h.api!.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/**
 * The network (hosts `atc-<tag>-h<i>` on 10.<subnet>.0.0/24), the store, the receiver and both
 * hosts' API and worker, the first host first (so it takes the relay lease). `config` is added
 * to the config file both hosts read; `name` names the temporary folder and the task queue.
 */
export const startTwoHosts = async (
  name: string,
  tag: string,
  config: (rx: Receiver) => Record<string, unknown> = () => ({}),
  subnet?: number,
): Promise<TwoHosts> => {
  const bed: Partial<TwoHosts> = {};
  try {
    const net = (bed.net = makeTestNetwork(tag, 2, subnet));
    const pg = (bed.pg = await startPostgres({ also: [net.gateway], trustNetwork: net.cidr }));
    // The shared Temporal dev server, reached through the bridge.
    const temporal = (bed.temporal = await forwardTcp(net.gateway, testServers().temporalAddress));
    const rx = (bed.rx = await startReceiver({}, net.gateway));
    const dir = tempDir(`at-${name}-`);
    const file = join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        api_keys: [{ id: 'hosts', key: KEY, scopes: ['triggers:read', 'triggers:write', 'signals:write', 'metrics:read'] }],
        allow_private_targets: true,
        retry: TEST_RETRY,
        limits: { default_timeout_secs: 3 },
        ...config(rx),
      }),
    );
    const env = (bed.env = {
      ACTION_TRIGGERS_CONFIG: file,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `${name}-${process.pid}`,
      WORKFLOW_BUNDLE_PATH: testServers().workflowBundlePath,
      EVENT_STORE: 'postgres',
      POSTGRES_URL: `postgres://postgres@${net.gateway}:${pg.port}/postgres`,
    });
    const hosts = (bed.hosts = net.hosts.map((h, i): Host => ({ name: h.name, exec: h.exec, dir: join(dir, `host${i + 1}`) })));
    for (const [i, h] of hosts.entries()) {
      await startApi(h, net.hosts[i]!.address, env);
      h.worker = await startWorkerProcess({ ...env, DATA_DIR: h.dir }, 60_000, h.exec);
    }
    return bed as TwoHosts;
  } catch (e) {
    await stopTwoHosts(bed);
    throw e;
  }
};

/** Stops what `startTwoHosts` started (any part of it: what a failed start left is given). */
export const stopTwoHosts = async ({ net, pg, temporal, rx, hosts }: Partial<TwoHosts>) => {
  for (const h of hosts ?? []) {
    if (h.api) await stopServerProcess(h.api, 'SIGKILL');
    if (h.worker) await killProcess(h.worker);
  }
  await rx?.close();
  await temporal?.close();
  if (pg) stopPostgres(pg);
  net?.remove();
};

/**
 * A client with a fallback: posts `body` (a signal, or an array of them, with their ids) to
 * `hosts[n % 2]`; what that host did not accept goes to the other, with the same ids.
 */
export const postSignals = async (hosts: readonly Host[], n: number, body: unknown) => {
  for (let attempt = 0; ; attempt++) {
    const target = hosts[(n + attempt) % hosts.length]!;
    try {
      const res = await fetch(`${target.api!.url}/api/signals`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(5000),
      });
      if (res.status === 202) return;
    } catch {
      /* that host is gone: the other one */
    }
    if (attempt > 20) throw new Error(`signals ${n} were accepted by neither host`);
  }
};
