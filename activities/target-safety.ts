import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { isIP } from 'node:net';

const V4_BLOCKS: Array<[number, number]> = [
  [0x00000000, 8], [0x0a000000, 8], [0x64400000, 10], [0x7f000000, 8], [0xa9fe0000, 16],
  [0xac100000, 12], [0xc0000000, 24], [0xc0a80000, 16], [0xc6120000, 15], [0xe0000000, 4], [0xf0000000, 4],
];

const v4ToInt = (ip: string) => ip.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;

/** Loopback, private, link-local (cloud metadata), CGNAT, multicast and reserved addresses. */
export const isPrivateAddress = (ip: string): boolean => {
  const v = isIP(ip);
  if (v === 4) {
    const n = v4ToInt(ip);
    return V4_BLOCKS.some(([base, bits]) => (n >>> (32 - bits)) === (base >>> (32 - bits)));
  }
  if (v === 6) {
    const lower = ip.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped) return isPrivateAddress(mapped[1]!);
    return lower === '::1' || lower === '::' || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower) || /^ff/.test(lower);
  }
  return true;
};

export class TargetNotAllowed extends Error {
  constructor(host: string) {
    super(`webhook target ${host} resolves to a private or loopback address (set allow_private_targets to allow it)`);
    this.name = 'TargetNotAllowed';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A DNS lookup for the HTTP agent that refuses private addresses, checked at connect time (no rebinding gap). */
export const safeLookup = (hostname: string, options: object, callback: LookupCallback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    if (list.some((a) => isPrivateAddress(a.address))) return callback(new TargetNotAllowed(hostname), []);
    const wantsAll = (options as { all?: boolean }).all === true;
    if (wantsAll) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};
