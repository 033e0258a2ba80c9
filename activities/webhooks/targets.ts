import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { ServiceError } from '../errors';

/** Addresses a webhook must never reach: loopback, private, link-local, shared, reserved, multicast. */
const BLOCKED = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) BLOCKED.addSubnet(network, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIpv4(address: string): string | undefined {
  const mapped = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const [high, low] = [Number.parseInt(hex[1], 16), Number.parseInt(hex[2], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !BLOCKED.check(address, 'ipv4');
  if (family !== 6) return false;
  const inner = embeddedIpv4(address.toLowerCase());
  if (inner) return !BLOCKED.check(inner, 'ipv4');
  return !BLOCKED.check(address, 'ipv6');
}

export interface Target {
  url: URL;
  /** The address to connect to, checked: the connection is pinned to it (no second DNS answer). */
  address: string;
  family: 4 | 6;
}

function refuse(message: string): never {
  throw new ServiceError('invalid_request', message, [{ path: 'url', message }]);
}

/** Only https, no credentials in the URL; the host must resolve to public addresses unless allow-listed. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('The URL is not valid.');
  }
  if (url.protocol !== 'https:') refuse('The URL must use https.');
  if (url.username || url.password) refuse('The URL must not carry a user name or password.');
  return url;
}

/**
 * Resolves a webhook or inbox URL and checks every address it resolves to (a name with one private
 * address among public ones is refused). Hosts in `allowedHosts` (development and tests) may
 * resolve anywhere. Called when the URL is registered and again before every delivery.
 */
export async function resolveTarget(raw: string, allowedHosts: readonly string[], resolve = lookup): Promise<Target> {
  const url = parseTargetUrl(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const allowed = allowedHosts.includes(host.toLowerCase());
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await resolve(host, { all: true, verbatim: true });
    } catch {
      return refuse(`The host ${host} does not resolve.`);
    }
  }
  if (addresses.length === 0) refuse(`The host ${host} does not resolve.`);
  if (!allowed) {
    const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
    if (blocked) refuse(`The URL resolves to a loopback, private or link-local address (${blocked.address}); webhooks go to public hosts only.`);
  }
  return { url, address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}
