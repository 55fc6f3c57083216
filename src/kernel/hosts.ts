import { isIP } from 'node:net';

/**
 * The one address classifier: the API (trigger write time) and the webhook transport (DNS
 * answers and the dialled socket) both ask it. Addresses are parsed to bytes, so every
 * spelling of an address (`::ffff:7f00:1`, `0:0:0:0:0:ffff:127.0.0.1`, …) is the same value.
 * Not Node's `net.BlockList`: it matches IPv4 rules against IPv4-mapped IPv6 and an IPv6
 * `::ffff:0:0/96` rule against every IPv4 address, an implicit rule we would rather spell out.
 */

type Block = readonly [bytes: readonly number[], bits: number];

const v4Bytes = (ip: string): number[] => ip.split('.').map(Number);

/** The 16 bytes of a valid IPv6 address (`isIP` said 6), zone id removed. */
const v6Bytes = (ip: string): number[] => {
  const [head = '', tail] = ip.split('%')[0]!.split('::');
  const groups = (s: string | undefined): number[] => {
    if (!s) return [];
    return s.split(':').flatMap((g) => {
      if (g.includes('.')) {
        const [a, b, c, d] = v4Bytes(g);
        return [(a! << 8) | b!, (c! << 8) | d!];
      }
      return [parseInt(g, 16)];
    });
  };
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
};

const cidr = (text: string): Block => {
  const [ip, bits] = text.split('/') as [string, string];
  return [isIP(ip) === 4 ? v4Bytes(ip) : v6Bytes(ip), Number(bits)];
};

const inBlock = (bytes: readonly number[], [base, bits]: Block): boolean => {
  if (bytes.length !== base.length) return false;
  for (let i = 0; i < bits; i += 8) {
    const mask = bits - i >= 8 ? 0xff : (0xff << (8 - (bits - i))) & 0xff;
    if ((bytes[i / 8]! & mask) !== (base[i / 8]! & mask)) return false;
  }
  return true;
};

/** IANA special-purpose IPv4 ranges a webhook never needs (RFC 6890 and successors). */
const V4_REFUSED = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
].map(cidr);

/** IPv6 is public only inside global unicast 2000::/3, and not in these parts of it. */
const V6_GLOBAL = cidr('2000::/3');
const V6_REFUSED = [
  '2001::/23', // IETF protocol assignments, incl. Teredo 2001::/32 (embeds an IPv4 address)
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4 (embeds an IPv4 address)
  '3fff::/20', // documentation
].map(cidr);
/**
 * IPv4-mapped (::ffff:0:0/96) and IPv4-translated (::ffff:0:0:0/96) addresses are IPv4 on the
 * wire: classified by their IPv4 part (a dual-stack socket reports IPv4 peers this way). Every
 * other form that embeds an IPv4 address (IPv4-compatible ::/96, NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48, 6to4, Teredo) lies outside the public ranges above and is refused whatever it
 * embeds: it reaches its IPv4 address through a translator we do not control.
 */
const V6_MAPPED = [cidr('::ffff:0:0/96'), cidr('::ffff:0:0:0/96')];

const isPrivateV4 = (bytes: readonly number[]) => V4_REFUSED.some((b) => inBlock(bytes, b));

/**
 * True unless `ip` is a public unicast address: loopback, private, link-local (cloud metadata),
 * CGNAT, multicast, reserved, documentation and benchmark ranges, in any IPv6 spelling, and
 * anything that is not an IP address at all.
 */
export const isPrivateAddress = (ip: string): boolean => {
  const family = isIP(ip);
  if (family === 4) return isPrivateV4(v4Bytes(ip));
  if (family !== 6) return true;
  if (ip.includes('%')) return true; // a zone id: link-scoped
  const bytes = v6Bytes(ip);
  if (V6_MAPPED.some((b) => inBlock(bytes, b))) return isPrivateV4(bytes.slice(12));
  return !inBlock(bytes, V6_GLOBAL) || V6_REFUSED.some((b) => inBlock(bytes, b));
};

const V4_LOOPBACK = cidr('127.0.0.0/8');
const V6_LOOPBACK = cidr('::1/128');

/** True for 127.0.0.0/8 and ::1, in any spelling, IPv4-mapped included; false for anything else (names too). */
export const isLoopbackAddress = (ip: string): boolean => {
  const family = isIP(ip);
  if (family === 4) return inBlock(v4Bytes(ip), V4_LOOPBACK);
  if (family !== 6 || ip.includes('%')) return false;
  const bytes = v6Bytes(ip);
  if (V6_MAPPED.some((b) => inBlock(bytes, b))) return inBlock(bytes.slice(12), V4_LOOPBACK);
  return inBlock(bytes, V6_LOOPBACK);
};

/** A URL host (`[::1]`, `127.0.0.1`, `Example.COM.`) as an address or a lower-case name without the root dot. */
export const bareHost = (hostname: string): string =>
  hostname.startsWith('[') ? hostname.slice(1, -1) : hostname.toLowerCase().replace(/\.+$/, '');

/** `localhost` and its subdomains resolve to loopback by convention (RFC 6761), whatever DNS says. */
export const isLocalhostName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/** A host (as `bareHost` leaves it) that is local by its spelling alone: a non-public address, or `localhost`. Names are not resolved. */
export const isLocalHostSpelling = (host: string): boolean => (isIP(host) ? isPrivateAddress(host) : isLocalhostName(host));
