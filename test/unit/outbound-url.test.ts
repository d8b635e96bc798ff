// Where Triage may send webhooks and redrives: never to internal addresses unless allowed.
import { describe, expect, it } from 'vitest';
import { isInternalAddress, outboundProblem, type OutboundPolicy } from '@/lib/outbound/outbound-url';

const policy = (over: Partial<OutboundPolicy> = {}): OutboundPolicy => ({
  allowPrivate: false,
  allowedHosts: new Set(),
  resolve: async (host) =>
    ({ 'hooks.slack.com': ['34.226.36.32'], 'rebound.example': ['93.184.216.34', '10.0.0.7'], 'meta.example': ['169.254.169.254'] })[host] ??
    Promise.reject(new Error('ENOTFOUND')),
  ...over,
});

// Each address is named in a failure, so one wrong verdict in a list says which.
function expectInternal(internal: readonly string[], external: readonly string[]): void {
  for (const ip of internal) expect(isInternalAddress(ip), ip).toBe(true);
  for (const ip of external) expect(isInternalAddress(ip), ip).toBe(false);
}

describe('outbound URLs', () => {
  it('knows internal addresses, IPv4-mapped IPv6 included', () => {
    expectInternal(
      [
        '127.0.0.1',
        '10.1.2.3',
        '172.16.0.1',
        '172.31.255.255',
        '192.168.1.1',
        '169.254.169.254',
        '100.64.0.1',
        '0.0.0.0',
        '224.0.0.1',
        '::1',
        '::',
        'fc00::1',
        'fd12:3456::1',
        'fe80::1',
        '::ffff:127.0.0.1',
        '::ffff:10.0.0.1',
        'not-an-ip',
      ],
      ['8.8.8.8', '34.226.36.32', '172.32.0.1', '192.169.0.1', '2606:4700::1111', '::ffff:8.8.8.8'],
    );
  });

  it('refuses internal targets by address or by what the name resolves to, and says why', async () => {
    expect(await outboundProblem('https://hooks.slack.com/services/T/B/x', policy())).toBeNull();
    expect(await outboundProblem('http://169.254.169.254/latest/meta-data/', policy())).toContain('169.254.169.254 is an internal address');
    expect(await outboundProblem('http://[::1]:8080/hook', policy())).toContain('::1 is an internal address');
    expect(await outboundProblem('http://meta.example/x', policy())).toContain('meta.example resolves to 169.254.169.254');
    // Any internal address among several is enough: the connection may pick it.
    expect(await outboundProblem('http://rebound.example/x', policy())).toContain('resolves to 10.0.0.7');
    // A name that does not resolve is refused: the connection must not resolve it again by itself.
    expect(await outboundProblem('http://nowhere.example/x', policy())).toContain('nowhere.example does not resolve');
    expect(await outboundProblem('ftp://hooks.slack.com/x', policy())).toBe('http or https only');
  });

  it('knows the IPv6 prefixes that carry an IPv4 address: NAT64 and 6to4 reach whatever IPv4 they embed', () => {
    // 64:ff9b::/96 (NAT64, RFC 6052), 64:ff9b:1::/48 (local NAT64, RFC 8215), 2002::/16 (6to4, RFC 3056).
    expectInternal(
      ['64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe', '64:ff9b::808:808', '64:ff9b:1::a00:1', '2002:7f00:1::1', '2002:a9fe:a9fe::', '2002::1'],
      ['2606:4700::1111', '2a00:1450:4001::200e', '64:ff9c::1'],
    );
  });

  it('knows IPv4 addresses written as IPv6 hex, IPv4-compatible, site-local and Teredo addresses', () => {
    // ::ffff:7f00:1 is ::ffff:127.0.0.1 as a URL's host writes it; ::/96 (IPv4-compatible, RFC 4291)
    // and Teredo (2001::/32) embed an IPv4; fec0::/10 is site-local (deprecated, still routed inside).
    expectInternal(
      [
        '::ffff:7f00:1',
        '::ffff:a9fe:a9fe',
        '::ffff:a00:1',
        '0:0:0:0:0:ffff:7f00:1',
        '::7f00:1',
        '::a9fe:a9fe',
        '::127.0.0.1',
        'fec0::1',
        'feff::1',
        '2001:0:4136:e378::1',
        '2001::1',
      ],
      ['::ffff:808:808', '::ffff:8.8.8.8', '2001:4860::8888', '2001:db9::1'],
    );
  });

  it('lets an operator allow named hosts, or every internal address', async () => {
    expect(await outboundProblem('http://127.0.0.1:9000/hook', policy({ allowedHosts: new Set(['127.0.0.1']) }))).toBeNull();
    expect(await outboundProblem('http://[::1]/hook', policy({ allowedHosts: new Set(['::1']) }))).toBeNull();
    expect(await outboundProblem('http://10.0.0.5/hook', policy({ allowedHosts: new Set(['127.0.0.1']) }))).toContain('internal address');
    expect(await outboundProblem('http://10.0.0.5/hook', policy({ allowPrivate: true }))).toBeNull();
  });
});
