import { isLoopbackAddress } from '../../src/kernel/hosts';
import { isLoopbackHost, isLoopbackOrigin } from '../../src/http/loopback-only';

test('loopback addresses in every spelling, and nothing else', () => {
  for (const ip of ['127.0.0.1', '127.255.0.9', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:1'])
    expect({ ip, loopback: isLoopbackAddress(ip) }).toEqual({ ip, loopback: true });
  for (const ip of ['128.0.0.1', '10.0.0.1', '::2', '::', '::ffff:10.0.0.1', 'fe80::1%lo', 'localhost', '', '127.0.0.1.nip.io']) {
    expect({ ip, loopback: isLoopbackAddress(ip) }).toEqual({ ip, loopback: false });
  }
});

test('Host headers that name this machine only: localhost, *.localhost, 127/8, [::1], with or without port', () => {
  for (const host of [
    '127.0.0.1',
    '127.0.0.1:8080',
    'localhost',
    'LocalHost:80',
    'localhost.:8080',
    'admin.localhost',
    '[::1]',
    '[::1]:8080',
    '[0:0:0:0:0:0:0:1]:1',
    '[::ffff:127.0.0.1]:8080',
    '127.1:8080',
  ])
    expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: true });
  for (const host of [
    'attacker.example',
    'attacker.example:8080',
    'localhost.attacker.example',
    '127.0.0.1.nip.io',
    'localhostx',
    '[::2]',
    '10.0.0.1',
    '0.0.0.0',
    'user@127.0.0.1',
    '127.0.0.1/x',
    '127.0.0.1:8080:1',
    '',
    '[::1',
    'xn--localhost',
  ]) {
    expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: false });
  }
});

test('Origins of pages on this machine (any port, http or https); null, file and other sites are not', () => {
  for (const origin of ['http://127.0.0.1:8080', 'https://localhost', 'http://[::1]:3000', 'http://app.localhost:5173']) {
    expect({ origin, loopback: isLoopbackOrigin(origin) }).toEqual({ origin, loopback: true });
  }
  for (const origin of [
    'null',
    'file://',
    'http://attacker.example',
    'http://127.0.0.1.nip.io',
    'ws://127.0.0.1',
    'http://127.0.0.1:8080/path',
    'http://user@127.0.0.1',
    'chrome-extension://abc',
    '',
  ])
    expect({ origin, loopback: isLoopbackOrigin(origin) }).toEqual({ origin, loopback: false });
});
