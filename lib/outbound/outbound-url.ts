// Where Triage may send HTTP on a user's behalf (team webhooks, redrive URLs of ingest-fed sources):
// not to loopback, private, link-local (cloud metadata at 169.254.169.254), CGNAT, multicast or
// unspecified addresses, unless the operator allows them (OUTBOUND_ALLOWED_HOSTS, or
// OUTBOUND_ALLOW_PRIVATE=true for an all-internal deployment). Checked when the URL is saved (422) and
// again before each request, since a name can be re-pointed after it was saved. A name that changes
// between that check and the connection (DNS rebinding within seconds) is not covered.
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { env } from '@/lib/env';
import { unprocessable } from '@/lib/errors';

const internal = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) internal.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) internal.addSubnet(net, prefix, 'ipv6');

/** Loopback, private, link-local, CGNAT, multicast, reserved or unspecified (IPv4-mapped IPv6 included). */
export function isInternalAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return internal.check(ip, 'ipv4');
  if (family !== 6) return true; // not an address: never trusted
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? internal.check(mapped[1]!, 'ipv4') : internal.check(ip, 'ipv6');
}

export interface OutboundPolicy {
  allowPrivate: boolean;
  /** Host names or addresses allowed even when internal, lower-case. */
  allowedHosts: ReadonlySet<string>;
  resolve: (host: string) => Promise<string[]>;
}

const systemResolve = async (host: string) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export function outboundPolicy(): OutboundPolicy {
  const e = env();
  return { allowPrivate: e.OUTBOUND_ALLOW_PRIVATE, allowedHosts: new Set(e.OUTBOUND_ALLOWED_HOSTS), resolve: systemResolve };
}

/** Why Triage may not send to `url`, or null when it may. */
export async function outboundProblem(url: string, policy: OutboundPolicy = outboundPolicy()): Promise<string | null> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'http or https only';
  if (policy.allowPrivate) return null;
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (policy.allowedHosts.has(host)) return null;
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await policy.resolve(host);
  } catch {
    // A name that does not resolve (now) reaches nothing: the send itself fails and is logged.
    return null;
  }
  const bad = addresses.find(isInternalAddress);
  if (bad === undefined) return null;
  return `${host}${bad && bad !== host ? ` resolves to ${bad},` : ' is'} an internal address (loopback, private or link-local); an operator can allow it with OUTBOUND_ALLOWED_HOSTS`;
}

/** 422 naming `field` when Triage may not send to `url` (a URL being saved). */
export async function assertOutboundUrl(url: string, field: string): Promise<void> {
  const problem = await outboundProblem(url);
  if (problem) throw unprocessable(`${field}: ${problem}`, { field });
}
