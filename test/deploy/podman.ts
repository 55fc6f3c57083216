import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = join(__dirname, '..', '..');
export const BASE_IMAGE = 'localhost/action-triggers-node:24-bookworm';
export const IMAGE = 'localhost/action-triggers:test';

const run = promisify(execFile);

/**
 * podman's settings for these machines, where a container may not raise a resource limit
 * (no CAP_SYS_RESOURCE) and cgroups are v1 with a v2 mount beside them (crun refuses that;
 * runc with cgroupfs takes it): every container gets the limits podman itself runs with here
 * (the machine's open-file limit, and the process limit podman sets for itself).
 */
const containersConf = () => {
  const hardOpenFiles = /^Max open files\s+\S+\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? '1024';
  const file = join(mkdtempSync(join(tmpdir(), 'at-podman-')), 'containers.conf');
  writeFileSync(file, [
    '[containers]',
    `default_ulimits = ["nofile=${hardOpenFiles}:${hardOpenFiles}", "nproc=32768:32768"]`,
    '[engine]',
    'runtime = "runc"',
    'cgroup_manager = "cgroupfs"',
    '',
  ].join('\n'));
  return file;
};

const env = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? containersConf() };

/**
 * The label every container of a test run carries (its AT_TEST_RUN, scripts/test-run.js): a run
 * that is interrupted removes them by it, whatever state they were left in.
 */
export const RUN_LABEL = `at-test-run=${process.env.AT_TEST_RUN ?? 'none'}`;

/** Runs podman; resolves with its standard output, rejects with its standard error. A container it runs carries RUN_LABEL. */
export const podman = async (args: string[], timeoutMs = 60_000) => {
  const labelled = args[0] === 'run' ? ['run', '--label', RUN_LABEL, ...args.slice(1)] : args;
  try {
    return (await run('podman', labelled, { env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (e) {
    const err = e as Error & { stderr?: string; stdout?: string };
    throw new Error(`podman ${args.join(' ')}: ${err.message}\n${err.stderr ?? ''}`.slice(0, 8000));
  }
};

/** The stand-in for node:24-bookworm-slim (scripts/image-base.sh), then the service's image from the Dockerfile. */
export const buildImage = async () => {
  await run('bash', [join(ROOT, 'scripts', 'image-base.sh'), BASE_IMAGE], { env, timeout: 10 * 60_000, maxBuffer: 16 * 1024 * 1024 });
  // Docker's format: OCI's has no HEALTHCHECK. The build stage's npm reaches the registry through the host's network.
  // Behind a TLS-inspecting proxy the host trusts its CA through NODE_EXTRA_CA_CERTS: the build's npm gets the same file.
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  const caArgs = ca ? ['--volume', `${ca}:/run/host-ca.pem:ro`, '--build-arg', 'NODE_EXTRA_CA_CERTS=/run/host-ca.pem'] : [];
  await podman(['build', '--format', 'docker', '--network=host', ...caArgs, '--build-arg', `NODE_IMAGE=${BASE_IMAGE}`, '-t', IMAGE, ROOT], 15 * 60_000);
};

/** Polls `check` until it resolves true (every 500 ms, up to `timeoutMs`). */
export const eventually = async (check: () => Promise<boolean>, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
};
