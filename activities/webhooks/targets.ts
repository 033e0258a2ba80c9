import { lookup } from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';

/** How long a DNS lookup may take before the target is refused: node's `lookup` has no timeout of its own. */
export const DNS_TIMEOUT_MS = 5000;

type Verdict = { public: true } | { public: false; reason: string };

/** 2000::/3: the only IPv6 space allocated for global unicast; the rest has no public hosts. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
/** 64:ff9b::/96, the well-known NAT64 prefix; DNS64 answers a public IPv4 host with one (RFC 6052). */
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function ipv4Of(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes);
}

/** A form that carries an IPv4 address is judged by that address. */
function embedded(form: string, inner: ipaddr.IPv4): Verdict {
  const verdict = classifyIpv4(inner);
  return verdict.public ? verdict : { public: false, reason: `${form} ${verdict.reason} (${inner.toString()})` };
}

function classifyIpv4(address: ipaddr.IPv4): Verdict {
  const range = address.range();
  return range === 'unicast' ? { public: true } : { public: false, reason: range };
}

function classifyIpv6(address: ipaddr.IPv6): Verdict {
  const bytes = address.toByteArray();
  const range = address.range();
  switch (range) {
    case 'ipv4Mapped':
      return embedded('IPv4-mapped', address.toIPv4Address());
    case 'rfc6052':
      // Only the well-known /96 embeds a routable IPv4; 64:ff9b:1::/48 is for local use (RFC 8215).
      return address.match(NAT64) ? embedded('NAT64', ipv4Of(bytes.slice(12))) : { public: false, reason: 'local-use NAT64' };
    case '6to4':
      return embedded('6to4', ipv4Of(bytes.slice(2, 6)));
    case 'unicast':
      if (bytes.slice(0, 12).every((byte) => byte === 0)) return { public: false, reason: 'IPv4-compatible (deprecated)' };
      return address.match(GLOBAL_UNICAST) ? { public: true } : { public: false, reason: 'outside global unicast 2000::/3' };
    default:
      // loopback, uniqueLocal, linkLocal, deprecatedSiteLocal, multicast, teredo, rfc6145, reserved, discard …
      return { public: false, reason: range };
  }
}

/**
 * Whether a webhook may reach the address: public unicast only, judged by ipaddr.js's ranges, an
 * IPv6 form that embeds an IPv4 address by that address (docs/decisions/0014-webhooks.md lists what is refused).
 */
export function classifyAddress(address: string): Verdict {
  if (net.isIPv4(address)) return classifyIpv4(ipaddr.IPv4.parse(address));
  if (!net.isIPv6(address)) return { public: false, reason: 'not an IP address' };
  if (address.includes('%')) return { public: false, reason: 'scoped to an interface' };
  // ipaddr.js reads ::a.b.c.d as ::ffff:a.b.c.d; the WHATWG URL parser writes any IPv6 in exact hex first.
  return classifyIpv6(ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1)));
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).public;
}

export type Resolve = (host: string, options: { all: true; verbatim: boolean }) => Promise<Array<{ address: string; family: number }>>;

export interface Target {
  url: URL;
  /** The address to connect to, checked: the connection is pinned to it (no second DNS answer). */
  address: string;
  family: 4 | 6;
}

function refuse(message: string, logDetail?: Record<string, unknown>): never {
  const error = errors.invalidRequest(message, [{ path: 'url', message }]);
  error.logDetail = logDetail;
  throw error;
}

/** Only https, no credentials in the URL; the host must resolve to public addresses unless allow-listed. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse(t('errors.webhooks.url_not_valid'));
  }
  if (url.protocol !== 'https:') refuse(t('errors.webhooks.url_must_use_https'));
  if (url.username || url.password) refuse(t('errors.webhooks.url_must_not_carry_user'));
  return url;
}

/**
 * Resolves a webhook or inbox URL and checks every address it resolves to (a name with one private
 * address among public ones is refused). Hosts in `allowedHosts` (development and tests) may
 * resolve anywhere. Called when the URL is registered and again before every delivery.
 */
export async function resolveTarget(
  raw: string,
  allowedHosts: readonly string[],
  resolve: Resolve = lookup,
  timeoutMs = DNS_TIMEOUT_MS,
): Promise<Target> {
  const url = parseTargetUrl(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const allowed = allowedHosts.includes(host.toLowerCase());
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else addresses = await lookupWithin(resolve, host, timeoutMs);
  if (addresses.length === 0) refuse(t('errors.webhooks.host_does_not_resolve', { host }));
  if (!allowed) {
    for (const { address } of addresses) {
      const verdict = classifyAddress(address);
      if (!verdict.public) refuse(t('errors.webhooks.url_not_public'), { host, address, reason: verdict.reason });
    }
  }
  return { url, address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}

/** The host's addresses, or a refusal once `timeoutMs` passes: a slow resolver must not hold registration or delivery. */
async function lookupWithin(resolve: Resolve, host: string, timeoutMs: number): Promise<Array<{ address: string; family: number }>> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((settle) => {
    timer = setTimeout(() => settle('timeout'), timeoutMs);
  });
  const answer = resolve(host, { all: true, verbatim: true });
  answer.catch(() => undefined); // a failure after the timeout has no one left to tell
  let first: Awaited<typeof answer> | 'timeout';
  try {
    first = await Promise.race([answer, timedOut]);
  } catch {
    return refuse(t('errors.webhooks.host_does_not_resolve', { host }));
  } finally {
    clearTimeout(timer);
  }
  return first === 'timeout' ? refuse(t('errors.webhooks.host_did_not_resolve_within', { host, timeoutMs })) : first;
}
