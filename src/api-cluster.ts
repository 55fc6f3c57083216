import cluster, { Worker } from 'node:cluster';
import { Logger } from './kernel/logger';
import { answerClusterMetrics } from './observability/cluster-metrics';

/** How long a replacement waits after a process died, so a crash loop does not spin. */
const RESTART_DELAY_MS = 1000;

/**
 * The primary of `--role=api` with API_PROCESSES > 1: forks that many API processes, which
 * share one listening port (Node's cluster hands out connections) and the DATA_DIR files
 * (SQLite serialises their writers). One process serves ~5k req/s here; Node uses one core
 * per process. A process that dies after it listened is replaced; one that dies before it
 * ever listened means the start failed, so everything stops. SIGTERM/SIGINT stop them all.
 */
export const runApiCluster = (count: number, log: Logger, mainFile: string) => {
  // Forks run `mainFile` with this process's arguments; TypeScript sources need ts-node there too.
  const register =
    mainFile.endsWith('.ts') && !process.execArgv.join(' ').includes('ts-node') ? ['-r', 'ts-node/register/transpile-only'] : [];
  cluster.setupPrimary({ exec: mainFile, execArgv: [...process.execArgv, ...register] });
  let stopping = false;
  const listened = new Set<Worker>();
  const live = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);

  const stopAll = (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping API processes', { reason });
    for (const w of live()) w.process.kill('SIGTERM');
    process.exitCode = exitCode;
    if (live().length === 0) process.exit(exitCode);
  };

  cluster.on('listening', (worker) => listened.add(worker));
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (live().length === 0) process.exit(process.exitCode ?? 0);
      return;
    }
    if (!listened.has(worker)) {
      log.error('an API process failed to start', { pid: worker.process.pid, code, signal });
      stopAll('start failed', 1);
      return;
    }
    listened.delete(worker);
    log.error('an API process died; starting another', { pid: worker.process.pid, code, signal });
    setTimeout(() => {
      if (!stopping) cluster.fork();
    }, RESTART_DELAY_MS);
  });

  answerClusterMetrics();
  for (let i = 0; i < count; i++) cluster.fork();
  log.info('API processes starting', { processes: count, pid: process.pid });
  process.once('SIGINT', () => stopAll('SIGINT', 0));
  process.once('SIGTERM', () => stopAll('SIGTERM', 0));
};
