import { describe, expect, it } from 'vitest';
import { classifyAddress, describeRefusal, parseIp } from '../../src/net/address-policy.ts';

describe('SSRF address policy', () => {
  it.each([
    // IPv4
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['192.0.0.192', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    // IPv6
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['fec0::1', 'private'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['100::1', 'reserved'],
    // IPv6 carrying an IPv4 address: judged by the IPv4 address
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'metadata'],
    ['::127.0.0.1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a9fe:a9fe::', 'metadata'],
    ['64:ff9b:1::1', 'reserved'],
  ])('refuses %s as %s', (address, kind) => {
    expect(classifyAddress(address)).toMatchObject({ allowed: false, kind });
  });

  it.each([
    '93.184.215.14',
    '1.1.1.1',
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '192.169.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:93.184.215.14',
    '::ffff:5db8:d70e',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows the public address %s', (address) => {
    expect(classifyAddress(address)).toEqual({ allowed: true });
  });

  it.each(['', 'localhost', '127.1', '1.2.3', '999.1.1.1', '::g', '1:2:3:4:5:6:7:8:9', 'http://127.0.0.1'])(
    'refuses "%s", which is not an IP address',
    (text) => {
      expect(classifyAddress(text)).toEqual({ allowed: false, kind: 'reserved', range: 'not an IP address' });
    },
  );

  it('names the address, its kind and the range in a refusal', () => {
    const verdict = classifyAddress('::ffff:127.0.0.1');
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed)
      expect(describeRefusal('::ffff:127.0.0.1', verdict)).toBe('::ffff:127.0.0.1 is a loopback address (127.0.0.0/8)');
  });

  it.each([
    ['1.2.3.4', [1, 2, 3, 4]],
    ['::1', [...Array(15).fill(0), 1]],
    ['1:2:3:4:5:6:7:8', [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]],
    ['1::8', [0, 1, ...Array(12).fill(0), 0, 8]],
    ['::ffff:1.2.3.4', [...Array(10).fill(0), 0xff, 0xff, 1, 2, 3, 4]],
    ['1:2:3:4:5:6:1.2.3.4', [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 1, 2, 3, 4]],
  ])('parses %s', (text, bytes) => {
    expect([...parseIp(text)!]).toEqual(bytes);
  });
});
