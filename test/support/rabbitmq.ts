import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'amqplib';

/** A private RabbitMQ node for the tests: its own ports, data dir and cookie, on loopback. */
export interface RabbitNode {
  dir: string;
  port: number;
  distPort: number;
  name: string;
}

const envOf = (n: RabbitNode) => ({
  ...process.env,
  HOME: join(n.dir, 'home'),
  RABBITMQ_NODENAME: n.name,
  RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
  RABBITMQ_NODE_PORT: String(n.port),
  RABBITMQ_DIST_PORT: String(n.distPort),
  RABBITMQ_MNESIA_BASE: join(n.dir, 'mnesia'),
  RABBITMQ_LOG_BASE: join(n.dir, 'log'),
  RABBITMQ_ENABLED_PLUGINS_FILE: join(n.dir, 'enabled_plugins'),
  RABBITMQ_CONFIG_FILE: join(n.dir, 'none'),
});

export const amqpUrlOf = (n: RabbitNode) => `amqp://guest:guest@127.0.0.1:${n.port}`;

const answers = async (url: string) => {
  try {
    const c = await connect(url);
    await c.close();
    return true;
  } catch {
    return false;
  }
};

/**
 * Starts the node (the real script, not Debian's wrapper, which would switch to the rabbitmq
 * user) and waits until AMQP answers. Returns the process group id, for `stopRabbit`.
 */
export const startRabbit = async (n: RabbitNode): Promise<number> => {
  for (const d of ['home', 'mnesia', 'log']) mkdirSync(join(n.dir, d), { recursive: true });
  writeFileSync(join(n.dir, 'enabled_plugins'), '[].');
  const child = spawn('/usr/lib/rabbitmq/bin/rabbitmq-server', [], { env: envOf(n), stdio: 'ignore', detached: true });
  child.unref();
  const deadline = Date.now() + 90_000;
  while (!(await answers(amqpUrlOf(n)))) {
    if (child.exitCode !== null) throw new Error(`rabbitmq-server exited with ${child.exitCode} (logs in ${join(n.dir, 'log')})`);
    if (Date.now() > deadline) throw new Error('rabbitmq-server did not answer within 90s');
    await new Promise((r) => setTimeout(r, 250));
  }
  return child.pid!;
};

/** Stops the node hard (the whole process group), as a crash would. */
export const stopRabbit = async (pgid: number, url: string) => {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* already gone */
  }
  for (let i = 0; i < 100 && (await answers(url)); i++) await new Promise((r) => setTimeout(r, 100));
};
