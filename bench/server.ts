import { spawn, ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledMain } from '../src/kernel/compiled-main';
import { silentLogger } from '../src/kernel/logger';
import { findTemporalCli } from '../src/temporal/cli';
import { DevServer, startDevServer } from '../src/temporal/dev-server';
import { freePort } from '../test/support/free-port';
import { Receiver, startReceiver } from '../test/support/receiver';

export interface Running {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts the compiled service as its own process (as `npm start` does) and waits until it listens. */
export const startService = (env: Record<string, string>, role: 'all' | 'api' = 'all', nodeFlags: string[] = []): Promise<Running> =>
  new Promise((resolve, reject) => {
    // BENCH_CPU_PROF_DIR=<dir>: the service writes V8 CPU profiles there (one per thread) when it stops.
    const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
    // BENCH_NODE_FLAGS: more node/V8 flags for the service only (e.g. `--perf-prof --interpreted-frames-native-stack`).
    profile.push(...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean));
    profile.push(...nodeFlags);
    const child = spawn(process.execPath, [...profile, compiledMain(), `--role=${role}`], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let listening = false;
    const onData = (b: Buffer) => {
      out += b.toString();
      // Searched only until found: the service logs every dispatch, and a search of all the output
      // per chunk cost this process more CPU than its load generator.
      const m = listening ? null : /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m) {
        listening = true;
        resolve({ url: m[1]!, child, output: () => out, stop: () => stopChild(child) });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`service exited (${code}): ${out}`)));
  });

/** `BENCH_METRICS=0`: the service runs with `metrics.enabled: false` (the config keys to add). */
export const benchMetricsConfig = () => (process.env.BENCH_METRICS === '0' ? { metrics: { enabled: false } } : {});

/** Waits until `count` API processes of a service have said they listen. */
export const waitForListening = async (service: Running, count: number) => {
  while ((service.output().match(/action-triggers API listening/g) ?? []).length < count) await new Promise((r) => setTimeout(r, 100));
};

const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** Resident memory of a process in MB, from /proc. */
export const rssMb = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

const BASELINES = {
  /** A bare node:http server answering a fixed JSON body: the machine's ceiling. */
  node: (b: string) =>
    `const b=${JSON.stringify(b)};require('node:http').createServer((q,s)=>{q.resume();q.on('end',()=>{s.writeHead(200,{'content-type':'application/json'});s.end(b)})}).listen(0,'127.0.0.1',function(){console.log('port '+this.address().port)})`,
  /** express 5 with one route and the JSON body parser, answering the same body: the framework's ceiling. */
  express: (b: string) =>
    `const e=require(${JSON.stringify(require.resolve('express'))});const b=${JSON.stringify(b)};const a=e();a.set('etag',false);a.use(e.json());a.get('/api/action-triggers/:id',(q,s)=>{s.status(200).set('ETag','"1"').type('application/json').send(b)});const srv=a.listen(0,'127.0.0.1',()=>console.log('port '+srv.address().port))`,
};

/** A baseline server in its own process, answering `body` on any path. */
export const startBaseline = (kind: keyof typeof BASELINES, body: string): Promise<Running> =>
  new Promise((resolve, reject) => {
    const code = BASELINES[kind](body);
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout!.on('data', (b: Buffer) => {
      const m = /port (\d+)/.exec(b.toString());
      if (m) resolve({ url: `http://127.0.0.1:${m[1]}`, child, output: () => '', stop: () => stopChild(child) });
    });
    child.once('exit', (c) => reject(new Error(`baseline exited ${c}`)));
  });

/**
 * A Temporal dev server (in memory) for one bench run, so service start-up times exclude Temporal's.
 * `metrics`: it serves its Prometheus counters at `metricsUrl`. `BENCH_TEMPORAL_CONFIG` (a JSON
 * object of dynamic config values) tries server settings without changing code.
 */
export const startBenchTemporal = async (o: { metrics?: boolean } = {}): Promise<DevServer & { metricsUrl?: string }> => {
  const cliPath = findTemporalCli(process.env.TEMPORAL_CLI_PATH);
  if (!cliPath) throw new Error('no Temporal CLI (bash scripts/install-tools.sh)');
  const metricsPort = o.metrics ? await freePort() : undefined;
  const dynamicConfig = process.env.BENCH_TEMPORAL_CONFIG
    ? (JSON.parse(process.env.BENCH_TEMPORAL_CONFIG) as Record<string, unknown>)
    : undefined;
  const server = await startDevServer({
    cliPath,
    dbFile: undefined,
    port: await freePort(),
    uiPort: undefined,
    namespace: 'default',
    log: silentLogger,
    metricsPort,
    dynamicConfig,
  });
  return { ...server, ...(metricsPort === undefined ? {} : { metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` }) };
};

/**
 * What most suites run on: a temp data dir, a Temporal dev server, a loopback receiver, and the
 * service (allowed to send to loopback) with `role`; `stop` ends them all and removes the dir.
 * `config`: more keys for the service's config file, made once the receiver's address is known.
 */
export const startBenchStack = async (
  name: string,
  role: 'all' | 'api' = 'all',
  config: (rx: Receiver) => Record<string, unknown> = () => ({}),
) => {
  const dir = mkdtempSync(join(tmpdir(), `at-bench-${name}-`));
  const temporal = await startBenchTemporal();
  const rx = await startReceiver();
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ allow_private_targets: true, ...config(rx) }));
  const service = await startService(
    { DATA_DIR: join(dir, 'data'), TEMPORAL_ADDRESS: temporal.address, ACTION_TRIGGERS_CONFIG: configFile },
    role,
  );
  return {
    dir,
    temporal,
    rx,
    service,
    stop: async () => {
      await service.stop();
      await rx.close();
      await temporal.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
