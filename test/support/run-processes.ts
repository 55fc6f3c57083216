import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * What the processes of one test run hold, read from /proc: the test command marks every process
 * it starts with AT_TEST_RUN=<run id> in its environment (scripts/test-run.js).
 */

const pids = () => readdirSync('/proc').flatMap((name) => (/^\d+$/.test(name) ? [Number(name)] : []));

const read = (path: string) => {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
};

/** The run ids of the test runs with a process alive now, but `except`, each with its processes. */
export const markedRuns = (except: string | undefined): Map<string, number[]> => {
  const runs = new Map<string, number[]>();
  for (const pid of pids()) {
    const environ = read(`/proc/${pid}/environ`)?.toString('latin1');
    const run = environ ? /(?:^|\0)AT_TEST_RUN=([^\0]+)/.exec(environ)?.[1] : undefined;
    if (run === undefined || run === except) continue;
    runs.set(run, [...(runs.get(run) ?? []), pid]);
  }
  return runs;
};

/** A process's command line, its arguments joined by spaces. */
export const commandLine = (pid: number) => read(`/proc/${pid}/cmdline`)?.toString().split('\0').join(' ').trim() ?? '';

/** The loopback TCP ports in LISTEN state, by socket inode (/proc/net/tcp and tcp6). */
const listeningByInode = (): Map<string, number> => {
  const byInode = new Map<string, number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of (read(file)?.toString() ?? '').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue;
      byInode.set(f[9]!, parseInt(f[1]!.split(':')[1]!, 16));
    }
  }
  return byInode;
};

/** The TCP ports the given processes listen on. */
export const listeningPorts = (of: readonly number[]): number[] => {
  const byInode = listeningByInode();
  const ports = new Set<number>();
  for (const pid of of) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target = '';
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      const port = inode === undefined ? undefined : byInode.get(inode);
      if (port !== undefined) ports.add(port);
    }
  }
  return [...ports].sort((a, b) => a - b);
};

/** Of `ports`, those some process listens on now. */
export const stillListening = (ports: readonly number[]) => {
  const now = new Set(listeningByInode().values());
  return ports.filter((p) => now.has(p));
};
