import { connect } from 'node:net';
import { freePort } from '../free-port';
import { spawnServer, waitUntil } from './process-group';

/** A private Redis (Debian's redis-server) on loopback, nothing persisted. */
export interface RedisServer {
  host: string;
  port: number;
  url: string;
  pgid: number;
}

const pong = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      reply += d.toString();
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply.startsWith('+PONG'));
      }
    });
    socket.on('error', () => resolve(false));
  });

/** On `port` when given (started again where clients already connect), else on a free one. */
export const startRedis = async (dir: string, port?: number): Promise<RedisServer> => {
  port ??= await freePort();
  const child = spawnServer('redis', dir, 'redis-server', [
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--logfile',
    '',
    // Its process title would be written over its environment, where the test command's mark
    // (AT_TEST_RUN) tells its processes from others (scripts/test-run.js).
    '--set-proc-title',
    'no',
  ]);
  await waitUntil('redis', dir, child, () => pong(port), 20_000);
  return { host: '127.0.0.1', port, url: `redis://127.0.0.1:${port}`, pgid: child.pid! };
};
