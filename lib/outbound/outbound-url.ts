// Where Triage may send HTTP on a user's behalf (team webhooks, redrive URLs of ingest-fed sources):
// not to loopback, private, link-local (cloud metadata at 169.254.169.254), CGNAT, multicast, site-local,
// unspecified addresses or the IPv6 prefixes that carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo), unless the
// operator allows them (OUTBOUND_ALLOWED_HOSTS, or OUTBOUND_ALLOW_PRIVATE=true for an all-internal
// deployment). Checked when the URL is saved (422) and again before each send, since a name can be
// re-pointed after it was saved. A send resolves the name once and connects to the address it
// checked (outbound-request.ts), so a name that changes in between (DNS rebinding) gains nothing.
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { env } from '@/lib/env';
import { unprocessable } from '@/lib/errors';

/** The refused ranges, in CIDR notation. */
const INTERNAL_RANGES = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/4',
  '240.0.0.0/4',
  // ::/96 holds the unspecified address, loopback and the deprecated IPv4-compatible addresses
  // (::7f00:1 is 127.0.0.1); fec0::/10 is the deprecated site-local range, still routed inside.
  '::/96',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
  // NAT64 (RFC 6052, and local-use RFC 8215), 6to4 (RFC 3056) and Teredo (RFC 4380) reach whatever
  // IPv4 they embed, 127.0.0.1 and the metadata address included: refused whole, as an operator can
  // allow a host.
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '2002::/16',
  '2001::/32',
];
const internal = new BlockList();
for (const range of INTERNAL_RANGES) {
  const [net, prefix] = range.split('/') as [string, string];
  internal.addSubnet(net, Number(prefix), isIP(net) === 4 ? 'ipv4' : 'ipv6');
}

/** Loopback, private, link-local, CGNAT, multicast, reserved or unspecified (IPv4-mapped, NAT64 and 6to4 IPv6 included). */
export function isInternalAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return internal.check(ip, 'ipv4');
  if (family !== 6) return true; // not an address: never trusted
  // An IPv4-mapped address is as internal as the IPv4 it carries, in whichever form it is written
  // (::ffff:127.0.0.1, or ::ffff:7f00:1 as a URL's host prints it).
  const h = hextets(ip);
  if (h?.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff) {
    return internal.check(`${h[6]! >> 8}.${h[6]! & 255}.${h[7]! >> 8}.${h[7]! & 255}`, 'ipv4');
  }
  return internal.check(ip, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included), or null. */
function hextets(ip: string): number[] | null {
  let s = ip.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.split('::') as [string, string | undefined];
  const part = (x: string | undefined) => (x ? x.split(':').map((g) => parseInt(g, 16)) : []);
  const l = part(head);
  const r = part(tail);
  const groups = tail === undefined ? l : [...l, ...new Array<number>(8 - l.length - r.length).fill(0), ...r];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
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

/** Where a send goes: the URL, and the one address its host was checked at (the connection's). */
export interface OutboundTarget {
  url: URL;
  /** The host as the URL names it, brackets removed (TLS checks the certificate against it). */
  host: string;
  address: string;
  family: 4 | 6;
}

export type ResolvedOutbound = { ok: true; target: OutboundTarget } | { ok: false; problem: string /** the name did not resolve (now) */; unresolved?: true };

/** Resolve `url`'s host once and check every address it has; the target pins the first one. */
export async function resolveOutbound(url: string, policy: OutboundPolicy = outboundPolicy()): Promise<ResolvedOutbound> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, problem: 'not a URL' };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, problem: 'http or https only' };
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await policy.resolve(host);
  } catch (err) {
    // Refused, not passed on: a connection left to resolve the name itself could reach anything.
    return { ok: false, problem: `${host} does not resolve (${err instanceof Error ? err.message : String(err)})`, unresolved: true };
  }
  if (addresses.length === 0) return { ok: false, problem: `${host} does not resolve`, unresolved: true };
  if (!policy.allowPrivate && !policy.allowedHosts.has(host)) {
    const bad = addresses.find(isInternalAddress);
    if (bad !== undefined) {
      return {
        ok: false,
        problem: `${host}${bad !== host ? ` resolves to ${bad},` : ' is'} an internal address (loopback, private or link-local); an operator can allow it with OUTBOUND_ALLOWED_HOSTS`,
      };
    }
  }
  const address = addresses[0]!;
  return { ok: true, target: { url: u, host, address, family: isIP(address) === 6 ? 6 : 4 } };
}

/** Why Triage may not send to `url`, or null when it may. */
export async function outboundProblem(url: string, policy: OutboundPolicy = outboundPolicy()): Promise<string | null> {
  const r = await resolveOutbound(url, policy);
  return r.ok ? null : r.problem;
}

/**
 * 422 naming `field` when Triage may not send to `url` (a URL being saved). A name that does not
 * resolve yet may be saved (its DNS may come later, or resolve only where the workers run): every
 * send resolves it again and refuses it while it does not.
 */
export async function assertOutboundUrl(url: string, field: string): Promise<void> {
  const r = await resolveOutbound(url);
  if (!r.ok && !r.unresolved) throw unprocessable(`${field}: ${r.problem}`, { field });
}
