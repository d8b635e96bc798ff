// Where Triage may send webhooks and redrives: never to internal addresses unless allowed.
import { describe, expect, it } from 'vitest';
import { isInternalAddress, outboundProblem, type OutboundPolicy } from '@/lib/outbound/outbound-url';

const policy = (over: Partial<OutboundPolicy> = {}): OutboundPolicy => ({
  allowPrivate: false,
  allowedHosts: new Set(),
  resolve: async (host) => ({ 'hooks.slack.com': ['34.226.36.32'], 'rebound.example': ['93.184.216.34', '10.0.0.7'], 'meta.example': ['169.254.169.254'] })[host] ?? Promise.reject(new Error('ENOTFOUND')),
  ...over,
});

describe('outbound URLs', () => {
  it('knows internal addresses, IPv4-mapped IPv6 included', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip']) {
      expect(isInternalAddress(ip), ip).toBe(true);
    }
    for (const ip of ['8.8.8.8', '34.226.36.32', '172.32.0.1', '192.169.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isInternalAddress(ip), ip).toBe(false);
  });

  it('refuses internal targets by address or by what the name resolves to, and says why', async () => {
    expect(await outboundProblem('https://hooks.slack.com/services/T/B/x', policy())).toBeNull();
    expect(await outboundProblem('http://169.254.169.254/latest/meta-data/', policy())).toContain('169.254.169.254 is an internal address');
    expect(await outboundProblem('http://[::1]:8080/hook', policy())).toContain('::1 is an internal address');
    expect(await outboundProblem('http://meta.example/x', policy())).toContain('meta.example resolves to 169.254.169.254');
    // Any internal address among several is enough: the connection may pick it.
    expect(await outboundProblem('http://rebound.example/x', policy())).toContain('resolves to 10.0.0.7');
    // A name that does not resolve reaches nothing; the send fails on its own and is logged.
    expect(await outboundProblem('http://nowhere.example/x', policy())).toBeNull();
    expect(await outboundProblem('ftp://hooks.slack.com/x', policy())).toBe('http or https only');
  });

  it('lets an operator allow named hosts, or every internal address', async () => {
    expect(await outboundProblem('http://127.0.0.1:9000/hook', policy({ allowedHosts: new Set(['127.0.0.1']) }))).toBeNull();
    expect(await outboundProblem('http://[::1]/hook', policy({ allowedHosts: new Set(['::1']) }))).toBeNull();
    expect(await outboundProblem('http://10.0.0.5/hook', policy({ allowedHosts: new Set(['127.0.0.1']) }))).toContain('internal address');
    expect(await outboundProblem('http://10.0.0.5/hook', policy({ allowPrivate: true }))).toBeNull();
  });
});
