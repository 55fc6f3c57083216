import { isPrivateAddress, safeLookup, TargetNotAllowed } from '../../activities/target-safety';

test.each([
  ['127.0.0.1', true], ['10.1.2.3', true], ['172.16.0.1', true], ['172.31.255.255', true], ['192.168.1.1', true],
  ['169.254.169.254', true], ['100.64.0.1', true], ['0.0.0.0', true], ['::1', true], ['fd00::1', true], ['fe80::1', true],
  ['::ffff:127.0.0.1', true], ['8.8.8.8', false], ['172.32.0.1', false], ['2606:4700::1111', false], ['not-an-ip', true],
])('%s private: %s', (ip, expected) => {
  expect(isPrivateAddress(ip)).toBe(expected);
});

test('the agent lookup refuses names that resolve to loopback', async () => {
  const err = await new Promise<unknown>((resolve) => safeLookup('localhost', {}, (e) => resolve(e)));
  expect(err).toBeInstanceOf(TargetNotAllowed);
});
