#!/usr/bin/env node
/**
 * The test command's steps (scripts/test.sh starts it on Node 24): type-check, lint, every jest
 * suite, the Python client's tests, in turn; the first failure ends the run. `unit` runs the
 * unit tests alone, `image` the container image's test; ACTION_TRIGGERS_TEST_FILES=<regex> runs only the jest files it matches (no
 * type-check, lint or Python); JEST_ARGS are added to jest's arguments.
 *
 * Every process the run starts carries AT_TEST_RUN=<this run's id> in its environment. When the
 * run ends, fails or is interrupted (SIGINT, SIGTERM, SIGHUP), each of them still alive is
 * stopped by its pid, whatever process group it leads: the test servers lead groups of their
 * own, so a signal to the run's group does not reach them.
 */
const { spawn, spawnSync } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const RUN = randomUUID();
const MARK = Buffer.from(`AT_TEST_RUN=${RUN}\0`);
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);
const jestArgs = (process.env.JEST_ARGS ?? '').split(/\s+/).filter(Boolean);
/** The jest projects `npm test` runs (jest.config.js): the service's tiers and the client package's tests. */
const JEST_PROJECTS = ['unit', 'integration', 'client-node'];

const stepsOf = (mode, only) => {
  if (mode === 'unit' || mode === 'image') return [[bin('jest'), ['--selectProjects', mode, ...jestArgs]]];
  if (only) return [[bin('jest'), ['--selectProjects', ...JEST_PROJECTS, '--testPathPattern', only, ...jestArgs]]];
  return [
    ['npm', ['run', 'typecheck']],
    ['npm', ['run', 'lint']],
    [bin('jest'), ['--selectProjects', ...JEST_PROJECTS, ...jestArgs]],
    ['npm', ['run', 'test:python']],
  ];
};

let current;
let interrupted;
let hardKill;
// The step gets the signal too (from the terminal it already has it); one that has not ended
// 15 s later is killed.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    interrupted ??= signal;
    if (!current) return;
    current.kill(signal);
    hardKill ??= setTimeout(() => current?.kill('SIGKILL'), 15_000);
  });

// npm execs this (package.json's `exec sh scripts/test.sh`), so a signal to npm reaches it; should
// whatever started it die without one, the run ends as if interrupted.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && process.emit('SIGHUP', 'SIGHUP'), 1000).unref();

/** Runs one step to its end; its exit status. */
const run = ([command, args]) =>
  new Promise((resolve) => {
    current = spawn(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, AT_TEST_RUN: RUN } });
    current.on('exit', (code, signal) => {
      clearTimeout(hardKill);
      current = undefined;
      resolve(code ?? (signal ? 1 : 0));
    });
    current.on('error', (e) => {
      console.error(`npm test: ${command} did not start: ${e.message}`);
      resolve(1);
    });
  });

const parentOf = (pid) => {
  try {
    // After the command name in parentheses (which may hold spaces): state, then the parent's pid.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
};

/**
 * The processes of this run still alive: those whose environment carries the run's mark, and
 * their descendants (a server that writes its process title over its environment, as
 * PostgreSQL's workers do, no longer shows the mark).
 */
const ours = () => {
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const pids = entries.map(Number).filter((pid) => Number.isInteger(pid) && pid !== process.pid);
  const found = new Set(
    pids.filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`).includes(MARK);
      } catch {
        return false;
      }
    }),
  );
  const parents = new Map(pids.map((pid) => [pid, parentOf(pid)]));
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, parent] of parents)
      if (!found.has(pid) && found.has(parent)) {
        found.add(pid);
        grew = true;
      }
  }
  return [...found];
};

const commandOf = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
  } catch {
    return '?';
  }
};

const signalEach = (pids, signal) => {
  for (const pid of pids)
    try {
      process.kill(pid, signal);
    } catch {
      /* gone */
    }
};

/**
 * Removes the containers the run left (the image test labels each with the run's id,
 * test/deploy/podman.ts): a container interrupted while starting outlives the podman that ran it.
 */
const removeContainers = () => {
  const list = spawnSync('podman', ['ps', '-aq', '--filter', `label=at-test-run=${RUN}`], { encoding: 'utf8', timeout: 30_000 });
  const ids = list.status === 0 ? list.stdout.split('\n').filter(Boolean) : [];
  if (ids.length === 0) return;
  console.error(`npm test: removing ${ids.length} containers the run left`);
  spawnSync('podman', ['rm', '-f', ...ids], { stdio: 'ignore', timeout: 60_000 });
};

/** Stops what the run left: SIGTERM, up to 5 s to go, then SIGKILL; then its containers. */
const sweep = async () => {
  const left = ours();
  if (left.length === 0) return removeContainers();
  console.error(`npm test: stopping ${left.length} processes the run left: ${[...new Set(left.map(commandOf))].join(', ')}`);
  signalEach(left, 'SIGTERM');
  const end = Date.now() + 5000;
  while (ours().length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  signalEach(ours(), 'SIGKILL');
  removeContainers();
};

const main = async () => {
  let status = 0;
  for (const step of stepsOf(process.argv[2], process.env.ACTION_TRIGGERS_TEST_FILES)) {
    if (interrupted) break;
    status = await run(step);
    if (status !== 0) break;
  }
  await sweep();
  const numbers = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
  process.exit(interrupted ? 128 + numbers[interrupted] : status);
};

void main();
