import { lookup as dnsLookupCallback, type LookupAddress, type LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, Socket, type TcpNetConnectOpts } from 'node:net';
import type { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/** Resolves a host name to its addresses (injectable, so tests need no network). */
export type Lookup = (host: string) => Promise<string[]>;

export const systemLookup: Lookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Cloud metadata and platform services: refused even when private addresses are allowed. AWS, GCP,
 * Azure and Oracle answer on 169.254.169.254 (AWS also on fd00:ec2::254), Alibaba on
 * 100.100.100.200, and Azure's platform endpoint is the public-looking 168.63.129.16.
 */
export const METADATA_CIDRS = [
  '169.254.169.254/32',
  '100.100.100.200/32',
  '168.63.129.16/32',
  'fd00:ec2::254/128',
];
const METADATA = METADATA_CIDRS.map((c) => ipaddr.parseCIDR(c));

/** IPv6 ranges ipaddr.js calls unicast that are no public destination: deprecated site-local. */
const NOT_PUBLIC_V6 = [ipaddr.parseCIDR('fec0::/10')];

const DNS_TIMEOUT_MS = 5000;

const v4 = (high: number, low: number) =>
  ipaddr.IPv4.parse(`${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`);

/**
 * The IPv4 addresses an IPv6 address carries, by the standards that embed one: IPv4-mapped
 * (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), NAT64
 * (64:ff9b::/96 and the local-use 64:ff9b:1::/48, RFC 6052/8215, last 32 bits), 6to4 (2002:AABB:CCDD::,
 * RFC 3056) and Teredo (2001::/32: the server and the obfuscated client address, RFC 4380).
 */
export function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = ip.parts as number[];
  const [p0 = 0, p1 = 0, p2 = 0, p3 = 0, p4 = 0, p5 = 0, p6 = 0, p7 = 0] = p;
  const found: ipaddr.IPv4[] = [];
  if (p0 === 0 && p1 === 0 && p2 === 0 && p3 === 0) {
    const compatible = p4 === 0 && p5 === 0 && p6 !== 0; // not :: nor ::1
    const mapped = p4 === 0 && p5 === 0xffff;
    const translated = p4 === 0xffff && p5 === 0;
    if (compatible || mapped || translated) found.push(v4(p6, p7));
  }
  if (p0 === 0x64 && p1 === 0xff9b) found.push(v4(p6, p7)); // NAT64, both prefixes
  if (p0 === 0x2002) found.push(v4(p1, p2)); // 6to4
  if (p0 === 0x2001 && p1 === 0) found.push(v4(p2, p3), v4(p6 ^ 0xffff, p7 ^ 0xffff)); // Teredo
  return found;
}

function v4Problem(ip: ipaddr.IPv4, allowPrivate: boolean): string | null {
  const range = ip.range();
  if (range === 'unspecified') return 'an unspecified address';
  if (METADATA.some(([net, bits]) => net.kind() === 'ipv4' && ip.match(net, bits))) {
    return 'a cloud metadata address';
  }
  if (!allowPrivate && range !== 'unicast') return `a ${range} address`;
  return null;
}

/**
 * Why an address may not be a webhook target, or null when it may. Every spelling of an address is
 * judged by what it reaches: an IPv6 address that carries an IPv4 one (mapped, compatible, NAT64,
 * 6to4, Teredo) is refused when the IPv4 address would be, and the IPv6 transition ranges
 * themselves are refused unless private targets are allowed.
 */
export function addressProblem(address: string, allowPrivate: boolean): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address.replace(/^\[(.*)\]$/, '$1'));
  } catch {
    return 'an invalid address';
  }
  if (ip.kind() === 'ipv4') return v4Problem(ip as ipaddr.IPv4, allowPrivate);
  const v6 = ip as ipaddr.IPv6;
  for (const inner of embeddedIPv4(v6)) {
    const problem = v4Problem(inner, allowPrivate);
    if (problem) return problem;
  }
  const range = v6.range();
  if (range === 'unspecified') return 'an unspecified address';
  if (METADATA.some(([net, bits]) => net.kind() === 'ipv6' && v6.match(net, bits))) {
    return 'a cloud metadata address';
  }
  if (allowPrivate) return null;
  // ::1 is all but one bit an IPv4-compatible address; name it for what it is.
  if (range === 'loopback') return 'a loopback address';
  // An IPv4-compatible address (::a.b.c.d) is deprecated and routes nowhere public.
  const p = v6.parts as number[];
  if (p.slice(0, 6).every((x) => x === 0)) return 'an IPv4-compatible address';
  if (NOT_PUBLIC_V6.some(([net, bits]) => v6.match(net, bits))) return 'a site-local address';
  // NAT64 of a public IPv4 address (what DNS64 gives an IPv4-only host) is a public target.
  if (range === 'rfc6052' && p[0] === 0x64 && p[1] === 0xff9b && p[2] === 0) return null;
  if (range !== 'unicast') return `a ${range} address`;
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

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;
type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A `lookup` for sockets that resolves as usual (or with the one given) and then refuses the
 * connection when any address it found has an `addressProblem`. It runs when connecting, after
 * every DNS answer, so a name that turned private after registration is still refused.
 */
export function guardedLookup(
  allowPrivate: boolean,
  resolve: LookupFunction = dnsLookupCallback as LookupFunction,
) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    resolve(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const list = Array.isArray(address) ? address.map((a) => a.address) : [address];
      for (const a of list) {
        const problem = addressProblem(a, allowPrivate);
        if (problem) {
          return callback(
            Object.assign(new Error(`${hostname} resolves to ${problem} (${a}), which is not allowed.`), {
              code: 'ERR_ADDRESS_REFUSED',
            }),
            address,
            family,
          );
        }
      }
      callback(null, address, family);
    });
  };
}

type ConnectOptions = TcpNetConnectOpts & { lookup?: LookupFunction };
type ConnectionListener = (error: Error | null, socket: Duplex) => void;

/** Our address rule at connect time, on top of the agent's own: for an IP literal and after DNS. */
function guardConnection(allowPrivate: boolean, options: ConnectOptions, listener?: ConnectionListener) {
  const host = options.host?.replace(/^\[(.*)\]$/, '$1');
  const problem = host && isIP(host) ? addressProblem(host, allowPrivate) : null;
  if (problem) {
    const error = Object.assign(new Error(`${host} is ${problem}, which is not allowed.`), {
      code: 'ERR_ADDRESS_REFUSED',
    });
    const socket = new Socket();
    if (listener) listener(error, socket);
    else queueMicrotask(() => socket.destroy(error));
    return { refused: socket };
  }
  return { options: { ...options, lookup: guardedLookup(allowPrivate, options.lookup) } };
}

/**
 * HTTP agents that check the address again when connecting (after DNS resolution), so a name that
 * resolved to a public address at registration and to a private one now is still refused. The
 * address rule is `addressProblem`, for IP literals and for every address a name resolves to;
 * request-filtering-agent's own check (which misses IPv4 carried in IPv6) stays as a second line.
 */
export function createGuardedAgents(allowPrivate: boolean) {
  const options = {
    keepAlive: true,
    allowPrivateIPAddress: allowPrivate,
    allowMetaIPAddress: false,
  };
  class GuardedHttpAgent extends RequestFilteringHttpAgent {
    override createConnection(o: TcpNetConnectOpts, listener?: ConnectionListener) {
      const guarded = guardConnection(allowPrivate, o, listener);
      return guarded.refused ?? super.createConnection(guarded.options, listener);
    }
  }
  class GuardedHttpsAgent extends RequestFilteringHttpsAgent {
    override createConnection(o: TcpNetConnectOpts, listener?: ConnectionListener) {
      const guarded = guardConnection(allowPrivate, o, listener);
      return guarded.refused ?? super.createConnection(guarded.options, listener);
    }
  }
  return { http: new GuardedHttpAgent(options), https: new GuardedHttpsAgent(options) };
}
