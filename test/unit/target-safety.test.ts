import fc from 'fast-check';
import { bareHost, isPrivateAddress } from '../../src/kernel/hosts';

test.each([
  // IPv4 special ranges
  '127.0.0.1',
  '127.255.255.254',
  '10.1.2.3',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '100.127.255.255',
  '0.0.0.0',
  '0.1.2.3',
  '192.0.0.8',
  '192.0.2.1',
  '192.88.99.1',
  '198.18.0.1',
  '198.19.255.255',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  // IPv6 loopback, unspecified and their long spellings
  '::1',
  '::',
  '0:0:0:0:0:0:0:1',
  '0000:0000:0000:0000:0000:0000:0000:0001',
  // IPv4-mapped, every spelling, and IPv4-translated
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '0:0:0:0:0:ffff:7f00:1',
  '::FFFF:7F00:0001',
  '::ffff:0.0.0.0',
  '::ffff:0:0',
  '::ffff:a9fe:a9fe',
  '::ffff:169.254.169.254',
  '::ffff:10.0.0.1',
  '::ffff:0:127.0.0.1',
  '::ffff:0:7f00:1',
  // IPv4-compatible (deprecated) and the rest of ::/8
  '::127.0.0.1',
  '::7f00:1',
  '::8.8.8.8',
  '::ffff:1:0:1',
  // NAT64, 6to4, Teredo: refused whatever they embed
  '64:ff9b::7f00:1',
  '64:ff9b::127.0.0.1',
  '64:ff9b::8.8.8.8',
  '64:ff9b:1::a00:1',
  '2002:7f00:1::',
  '2002:808:808::1',
  '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  '2001::1',
  // ULA, link-local (with and without zone), site-local, multicast, discard, documentation
  'fc00::1',
  'fd00::1',
  'FD12:3456::1',
  'fe80::1',
  'fe80::1%eth0',
  'febf::1',
  'fec0::1',
  'feff::1',
  'ff02::1',
  'ff0e::1',
  '100::1',
  '2001:db8::1',
  '3fff::1',
  // not an address at all
  'not-an-ip',
  '',
  'localhost',
  '127.1',
  '2130706433',
])('%s is refused', (ip) => {
  expect(isPrivateAddress(ip)).toBe(true);
});

test.each([
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '100.128.0.1',
  '192.0.3.1',
  '198.20.0.1',
  '223.255.255.255',
  '2606:4700::1111',
  '2a00:1450:4001::200e',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '2001:4860:4860::8888',
])('%s is public', (ip) => {
  expect(isPrivateAddress(ip)).toBe(false);
});

const v4In = (base: [number, number, number, number], bits: number) =>
  fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => {
    const n = ((((base[0] << 24) | (base[1] << 16) | (base[2] << 8) | base[3]) >>> 0) + offset) >>> 0;
    return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
  });

const privateV4 = fc.oneof(
  v4In([127, 0, 0, 0], 8),
  v4In([10, 0, 0, 0], 8),
  v4In([172, 16, 0, 0], 12),
  v4In([192, 168, 0, 0], 16),
  v4In([169, 254, 0, 0], 16),
  v4In([100, 64, 0, 0], 10),
  v4In([0, 0, 0, 0], 8),
  v4In([224, 0, 0, 0], 4),
);

const hex = (a: number, b: number) => ((a << 8) | b).toString(16);

/** Every way we know to put an IPv4 address into IPv6 text. */
const embeddings = ([a, b, c, d]: number[]) => {
  const dotted = `${a}.${b}.${c}.${d}`;
  const h = `${hex(a!, b!)}:${hex(c!, d!)}`;
  return [
    `::ffff:${dotted}`,
    `::ffff:${h}`,
    `0:0:0:0:0:ffff:${h}`,
    `0000:0000:0000:0000:0000:FFFF:${dotted}`,
    `::ffff:0:${dotted}`,
    `::${dotted}`,
    `::${h}`,
    `64:ff9b::${dotted}`,
    `64:ff9b::${h}`,
    `64:ff9b:1::${h}`,
    `2002:${h}::1`,
    `2001:0:1:2:3:4:${h}`,
  ];
};

test('for any IPv4 address in a private range, every IPv6 embedding of it is refused', () => {
  fc.assert(
    fc.property(privateV4, (v4) => {
      expect(isPrivateAddress(v4.join('.'))).toBe(true);
      for (const ip of embeddings(v4)) expect([ip, isPrivateAddress(ip)]).toEqual([ip, true]);
    }),
    { numRuns: 500 },
  );
});

test("the URL parser's spellings of a host reach the classifier as addresses", () => {
  const hosts = [
    'http://[::ffff:127.0.0.1]/',
    'http://[0:0:0:0:0:ffff:7f00:1]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://017700000001/',
    'http://[::ffff:0.0.0.0]/',
    'http://%31%32%37.0.0.1/',
  ];
  for (const url of hosts) expect([url, isPrivateAddress(bareHost(new URL(url).hostname))]).toEqual([url, true]);
  expect(bareHost(new URL('http://LOCALHOST./').hostname)).toBe('localhost');
});
