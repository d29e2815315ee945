import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/** Resolves a host name to its addresses (injectable, so tests need no network). */
export type Lookup = (host: string) => Promise<string[]>;

export const systemLookup: Lookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Cloud metadata services: refused even when private addresses are allowed. */
export const METADATA_CIDRS = ['169.254.169.254/32', '100.100.100.200/32', 'fd00:ec2::254/128'];
const METADATA = METADATA_CIDRS.map((c) => ipaddr.parseCIDR(c));
/** The same as single addresses, with the IPv4-mapped IPv6 spellings, for the connect-time agent. */
const METADATA_ADDRESSES = [
  '169.254.169.254',
  '100.100.100.200',
  'fd00:ec2::254',
  '::ffff:169.254.169.254',
  '::ffff:a9fe:a9fe',
  '::ffff:100.100.100.200',
  '::ffff:6464:64c8',
];

const DNS_TIMEOUT_MS = 5000;

/** Why an address may not be a webhook target, or null when it may. */
export function addressProblem(address: string, allowPrivate: boolean): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // `process` turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 address it carries.
    ip = ipaddr.process(address);
  } catch {
    return 'an invalid address';
  }
  const range = ip.range();
  if (range === 'unspecified') return 'an unspecified address';
  if (METADATA.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits))) {
    return 'a cloud metadata address';
  }
  if (!allowPrivate && range !== 'unicast') return `a ${range} address`;
  return null;
}

const isLoopbackName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

function isLoopbackAddress(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
}

export interface UrlCheckOptions {
  allowPrivate: boolean;
  lookup?: Lookup;
}

/**
 * Checks a webhook target at registration: an absolute https URL (http only on loopback with the
 * allow-private setting), no credentials, and every address the host resolves to a public one
 * unless private addresses are allowed. Returns the violation message, or null.
 */
export async function urlProblem(raw: string, options: UrlCheckOptions): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'The url field must be an absolute https URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The url field must be an https URL.';
  if (url.username || url.password) return 'The url field must not contain credentials.';
  // WHATWG URL parsing already turned decimal, octal and hex IPv4 forms (2130706433) into dotted form.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) return 'The url field must name a host.';

  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      const lookup = options.lookup ?? systemLookup;
      addresses = await Promise.race([
        lookup(host),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('timeout')), DNS_TIMEOUT_MS).unref(),
        ),
      ]);
    } catch {
      return `The url field's host '${host}' could not be resolved.`;
    }
    if (addresses.length === 0) return `The url field's host '${host}' could not be resolved.`;
  }

  if (url.protocol === 'http:') {
    const loopback = isIP(host)
      ? isLoopbackAddress(host)
      : isLoopbackName(host) && addresses.every(isLoopbackAddress);
    if (!options.allowPrivate || !loopback) {
      return 'The url field must be an https URL (http is allowed only on loopback when KOLLI_WEBHOOK_ALLOW_PRIVATE=1).';
    }
  }
  for (const address of addresses) {
    const problem = addressProblem(address, options.allowPrivate);
    if (problem) return `The url field must not point to ${problem} (${address}).`;
  }
  return null;
}

/**
 * HTTP agents that check the address again when connecting (after DNS resolution), so a name that
 * resolved to a public address at registration and to a private one now is still refused.
 */
export function createGuardedAgents(allowPrivate: boolean) {
  const options = {
    keepAlive: true,
    allowPrivateIPAddress: allowPrivate,
    allowMetaIPAddress: false,
    // Single addresses, not CIDRs: the agent compares a CIDR of one IP version with an address of
    // the other by throwing (and logging a warning on every connection).
    denyIPAddressList: METADATA_ADDRESSES,
  };
  return { http: new RequestFilteringHttpAgent(options), https: new RequestFilteringHttpsAgent(options) };
}
