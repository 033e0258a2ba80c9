import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceError } from '../../lib/errors';
import { classifyAddress, isPublicAddress, type Resolve, resolveTarget } from './targets';

/** Each address with the reason it is refused; every IPv4-embedding form carries a private or loopback IPv4. */
const REFUSED: Array<[string, RegExp]> = [
  ['127.0.0.1', /loopback/],
  ['10.1.2.3', /private/],
  ['172.16.0.1', /private/],
  ['192.168.0.10', /private/],
  ['169.254.169.254', /linkLocal/],
  ['100.64.0.1', /carrierGradeNat/],
  ['0.0.0.0', /unspecified/],
  ['255.255.255.255', /broadcast/],
  ['224.0.0.1', /multicast/],
  ['192.0.2.1', /reserved/],
  ['198.18.0.1', /reserved/],
  ['240.0.0.1', /reserved/],
  ['::', /unspecified/],
  ['::1', /loopback/],
  ['fe80::1', /linkLocal/],
  ['fc00::1', /uniqueLocal/],
  ['fd12:3456::1', /uniqueLocal/],
  ['fec0::1', /SiteLocal/],
  ['ff02::1', /multicast/],
  ['2001:db8::1', /reserved/],
  ['100::1', /discard/],
  ['2001:2::1', /benchmarking/],
  ['4000::1', /outside global unicast/],
  ['::ffff:127.0.0.1', /IPv4-mapped loopback \(127\.0\.0\.1\)/],
  ['::ffff:7f00:1', /IPv4-mapped loopback/],
  ['::ffff:a00:1', /IPv4-mapped private \(10\.0\.0\.1\)/],
  ['::ffff:169.254.169.254', /IPv4-mapped linkLocal/],
  ['::127.0.0.1', /IPv4-compatible/],
  ['::a00:1', /IPv4-compatible/],
  ['::8.8.8.8', /IPv4-compatible/],
  ['::ffff:0:a00:1', /rfc6145/],
  ['64:ff9b::a00:1', /NAT64 private \(10\.0\.0\.1\)/],
  ['64:ff9b::127.0.0.1', /NAT64 loopback/],
  ['64:ff9b:1::808:808', /local-use NAT64/],
  ['2002:7f00:1::', /6to4 loopback \(127\.0\.0\.1\)/],
  ['2002:c0a8:1::1', /6to4 private \(192\.168\.0\.1\)/],
  ['2001::1', /teredo/],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /teredo/],
  ['fe80::1%eth0', /scoped/],
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '2606:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::808:808',
  '2002:808:808::1',
];

describe('webhook target addresses', () => {
  it('refuses every non-public range, judging IPv4-embedding IPv6 forms by the IPv4 inside', () => {
    for (const [address, reason] of REFUSED) {
      const verdict = classifyAddress(address);
      assert.equal(verdict.public, false, address);
      assert.match(!verdict.public ? verdict.reason : '', reason, address);
    }
  });

  it('lets public unicast addresses pass, embedded ones included', () => {
    for (const address of PUBLIC) assert.equal(isPublicAddress(address), true, address);
  });

  it('refuses a URL whose host resolves to any non-public address, unless the host is allow-listed', async () => {
    const resolve: Resolve = async () => [
      { address: '8.8.8.8', family: 4 },
      { address: '64:ff9b::a00:1', family: 6 },
    ];
    await assert.rejects(resolveTarget('https://hooks.example.com/x', [], resolve), (error: ServiceError) => {
      assert.equal(error.code, 'invalid_request');
      assert.match(error.message, /not a public https URL/);
      assert.doesNotMatch(error.message, /64:ff9b/, 'the address is not told to the client');
      assert.deepEqual(error.logDetail, { host: 'hooks.example.com', address: '64:ff9b::a00:1', reason: error.logDetail?.reason });
      assert.match(String(error.logDetail?.reason), /NAT64 private/);
      return true;
    });
    assert.equal((await resolveTarget('https://hooks.example.com/x', ['hooks.example.com'], resolve)).address, '8.8.8.8');
    assert.equal((await resolveTarget('https://[2606:4700::1111]/x', [])).address, '2606:4700::1111');
  });

  it('refuses a host whose lookup does not answer within the timeout, and one that fails', async () => {
    const silent: Resolve = () => new Promise(() => undefined);
    await assert.rejects(resolveTarget('https://slow.example.com/hooks', [], silent, 20), (error: ServiceError) => {
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.details?.[0].path, 'url');
      assert.match(error.message, /slow\.example\.com did not resolve within 20 ms/);
      return true;
    });
    const failing: Resolve = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await assert.rejects(resolveTarget('https://gone.example.com/hooks', [], failing), /gone\.example\.com does not resolve/);
  });
});
