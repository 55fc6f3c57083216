import { execFileSync } from 'node:child_process';

/**
 * Test hosts: network namespaces on a bridge of their own, each with its address, reached from
 * this (the root) namespace through the bridge's address. Servers every host shares (the
 * database, Temporal, the receiver) listen on `gateway`. Needs root (CI runs as root).
 */
export interface TestNetwork {
  /** This namespace's address on the bridge. */
  readonly gateway: string;
  /** The bridge's network, e.g. for a server's allow list. */
  readonly cidr: string;
  readonly hosts: ReadonlyArray<{ name: string; address: string; exec: string[] }>;
  remove(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });

/** `count` hosts on 10.<subnet>.0.0/24: the bridge is .1, host i is .(11 + i). Names end with `tag` so runs never collide. */
export const makeTestNetwork = (tag: string, count: number, subnet = 200 + (process.pid % 50)): TestNetwork => {
  const bridge = `atcbr${tag}`.slice(0, 15);
  const gateway = `10.${subnet}.0.1`;
  const names = Array.from({ length: count }, (_, i) => `atc-${tag}-h${i + 1}`);
  const remove = () => {
    for (const name of names) {
      try {
        ip('netns', 'del', name);
      } catch {
        /* not made */
      }
    }
    try {
      ip('link', 'del', bridge);
    } catch {
      /* not made */
    }
  };
  remove();
  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${gateway}/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
    const hosts = names.map((name, i) => {
      const address = `10.${subnet}.0.${11 + i}`;
      const outside = `atv${tag}${i}a`.slice(0, 15);
      const inside = `atv${tag}${i}b`.slice(0, 15);
      ip('netns', 'add', name);
      ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
      ip('link', 'set', outside, 'master', bridge);
      ip('link', 'set', outside, 'up');
      ip('link', 'set', inside, 'netns', name);
      ip('-n', name, 'addr', 'add', `${address}/24`, 'dev', inside);
      ip('-n', name, 'link', 'set', inside, 'up');
      ip('-n', name, 'link', 'set', 'lo', 'up');
      return { name, address, exec: ['ip', 'netns', 'exec', name] };
    });
    return { gateway, cidr: `10.${subnet}.0.0/24`, hosts, remove };
  } catch (e) {
    remove();
    throw e;
  }
};
