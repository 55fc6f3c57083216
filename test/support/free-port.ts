import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Loopback ports for servers a test starts later, or stops and starts again on the same port.
 * They come from below the kernel's ephemeral range: a port from that range (what `listen(0)`
 * gives) may be taken, between the pick and the bind, by any outgoing connection of any process
 * (a service then failed to start with EADDRINUSE). Below it only other pickers compete; each
 * process walks its own run of ports from a random start, so they rarely meet.
 */
const LOWEST = 10_000;

const ephemeralStart = () => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
};
const ABOVE_LAST = ephemeralStart();
let next = LOWEST + Math.floor(Math.random() * (ABOVE_LAST - LOWEST));

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A loopback port free right now, never one this process was given before (until the run wraps). */
export const freePort = async (): Promise<number> => {
  for (;;) {
    const port = next;
    next = next + 1 >= ABOVE_LAST ? LOWEST : next + 1;
    if (await bindable(port)) return port;
  }
};

/** `n` distinct loopback ports free right now. */
export const freePorts = async (n: number): Promise<number[]> => {
  const ports: number[] = [];
  while (ports.length < n) ports.push(await freePort());
  return ports;
};
