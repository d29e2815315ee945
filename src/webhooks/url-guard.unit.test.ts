import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addressProblem, createGuardedAgents, urlProblem } from './url-guard';

// CONTRACT §10 and §13: every spelling of a private, loopback, link-local or metadata address is
// refused as a webhook target, at registration and again when connecting.

/** Spellings of addresses no webhook may reach: [url host, what it is]. */
const REFUSED: [string, string][] = [
  // IPv4 loopback in decimal, octal, hex and short forms (WHATWG URL parsing reads them all)
  ['127.0.0.1', 'loopback'],
  ['127.1', 'loopback, short'],
  ['127.0.1', 'loopback, short'],
  ['127.255.255.254', 'loopback, end of range'],
  ['2130706433', 'loopback, one decimal number'],
  ['0x7f000001', 'loopback, one hex number'],
  ['0x7f.0.0.1', 'loopback, hex octet'],
  ['0x7F.0x00.0x00.0x01', 'loopback, hex octets'],
  ['0177.0.0.1', 'loopback, octal octet'],
  ['0177.1', 'loopback, octal short'],
  ['017700000001', 'loopback, one octal number'],
  ['127.000.000.001', 'loopback, zero-padded'],
  ['0.0.0.0', 'unspecified'],
  ['0', 'unspecified, one number'],
  ['0x0', 'unspecified, hex'],
  // private ranges
  ['10.0.0.1', 'private'],
  ['012.0.0.1', 'private, octal'],
  ['0xa.0.0.1', 'private, hex'],
  ['167772161', 'private, decimal'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private, end of range'],
  ['192.168.1.1', 'private'],
  ['3232235777', 'private, decimal'],
  ['0xc0a80101', 'private, hex'],
  ['100.64.0.1', 'carrier-grade NAT'],
  // link-local and metadata
  ['169.254.169.254', 'metadata'],
  ['2852039166', 'metadata, decimal'],
  ['0xa9fea9fe', 'metadata, hex'],
  ['0251.0376.0251.0376', 'metadata, octal'],
  ['169.254.1.1', 'link-local'],
  ['100.100.100.200', 'metadata (Alibaba)'],
  ['168.63.129.16', 'platform endpoint (Azure)'],
  // other special IPv4
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['198.18.0.1', 'benchmarking'],
  // IPv6 loopback, unspecified, local
  ['[::1]', 'IPv6 loopback'],
  ['[0:0:0:0:0:0:0:1]', 'IPv6 loopback, long'],
  ['[::]', 'IPv6 unspecified'],
  ['[fe80::1]', 'IPv6 link-local'],
  ['[fc00::1]', 'IPv6 unique local'],
  ['[fd12:3456::1]', 'IPv6 unique local'],
  ['[fd00:ec2::254]', 'metadata (AWS IPv6)'],
  ['[fec0::1]', 'IPv6 site-local (deprecated)'],
  ['[ff02::1]', 'IPv6 multicast'],
  // IPv4-compatible IPv6
  ['[::127.0.0.1]', 'IPv4-compatible loopback'],
  ['[::7f00:1]', 'IPv4-compatible loopback, hex'],
  ['[::a9fe:a9fe]', 'IPv4-compatible metadata'],
  ['[::169.254.169.254]', 'IPv4-compatible metadata, dotted'],
  ['[::10.0.0.1]', 'IPv4-compatible private'],
  ['[::a00:1]', 'IPv4-compatible private, hex'],
  ['[0:0:0:0:0:0:7f00:1]', 'IPv4-compatible loopback, long'],
  // IPv4-mapped and -translated IPv6
  ['[::ffff:7f00:1]', 'IPv4-mapped loopback'],
  ['[::ffff:127.0.0.1]', 'IPv4-mapped loopback, dotted'],
  ['[::ffff:a9fe:a9fe]', 'IPv4-mapped metadata'],
  ['[::ffff:10.0.0.1]', 'IPv4-mapped private'],
  ['[0:0:0:0:0:ffff:c0a8:101]', 'IPv4-mapped private, long'],
  ['[::ffff:0:7f00:1]', 'IPv4-translated loopback'],
  // NAT64 of the same
  ['[64:ff9b::7f00:1]', 'NAT64 loopback'],
  ['[64:ff9b::127.0.0.1]', 'NAT64 loopback, dotted'],
  ['[64:ff9b::a9fe:a9fe]', 'NAT64 metadata'],
  ['[64:ff9b::10.0.0.1]', 'NAT64 private'],
  ['[64:ff9b::c0a8:101]', 'NAT64 private, hex'],
  ['[64:ff9b:1::a9fe:a9fe]', 'local-use NAT64 metadata'],
  // 6to4 and Teredo carrying them
  ['[2002:7f00:1::]', '6to4 of loopback'],
  ['[2002:a9fe:a9fe::1]', '6to4 of metadata'],
  ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', 'Teredo with a loopback client'],
];

describe('registration refuses every spelling', () => {
  test(`the table has at least 50 spellings (${REFUSED.length})`, () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(50);
  });

  test.each(REFUSED)('https://%s/ (%s)', async (host) => {
    for (const url of [`https://${host}/hook`, `https://${host}:8443/hook`, `http://${host}/hook`]) {
      expect(await urlProblem(url, { allowPrivate: false }), url).toMatch(/must (not point|be an https)/);
    }
  });

  test.each([
    ['169.254.169.254'],
    ['2852039166'],
    ['0xa9fea9fe'],
    ['[::a9fe:a9fe]'],
    ['[::ffff:a9fe:a9fe]'],
    ['[64:ff9b::a9fe:a9fe]'],
    ['[2002:a9fe:a9fe::]'],
    ['[fd00:ec2::254]'],
    ['100.100.100.200'],
    ['168.63.129.16'],
    ['0.0.0.0'],
    ['[::]'],
  ])('%s is refused even when private targets are allowed', async (host) => {
    expect(await urlProblem(`https://${host}/hook`, { allowPrivate: true })).toMatch(/must not point/);
  });

  test.each([
    ['127.0.0.1'],
    ['0x7f000001'],
    ['[::1]'],
    ['[::7f00:1]'],
    ['10.0.0.1'],
    ['[64:ff9b::10.0.0.1]'],
  ])('%s is allowed when private targets are allowed', async (host) => {
    expect(await urlProblem(`https://${host}/hook`, { allowPrivate: true })).toBeNull();
  });

  test.each([
    ['93.184.216.34'],
    ['[2606:2800:220:1:248:1893:25c8:1946]'],
    ['[64:ff9b::808:808]'],
    ['1.1.1.1'],
  ])('a public address passes: %s', async (host) => {
    expect(await urlProblem(`https://${host}/hook`, { allowPrivate: false })).toBeNull();
  });

  test.each([
    ['localhost', ['127.0.0.1']],
    ['metadata.google.internal', ['169.254.169.254']],
    ['v6-compatible.example', ['::a9fe:a9fe']],
    ['nat64.example', ['64:ff9b::a9fe:a9fe']],
    ['mapped.example', ['::ffff:10.0.0.1']],
    ['mixed.example', ['93.184.216.34', '10.0.0.1']],
  ])('a name is judged by every address it resolves to: %s', async (name, addresses) => {
    const lookup = async () => addresses;
    expect(await urlProblem(`https://${name}/hook`, { allowPrivate: false, lookup })).toMatch(
      /must not point/,
    );
  });
});

describe('connecting refuses them again', () => {
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  type Lookup = (
    host: string,
    options: object,
    cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => void;

  /** A POST through the agent to `host`, resolved by `lookup` when given; the error code or the status. */
  function post(agent: http.Agent, host: string, lookup?: Lookup): Promise<string> {
    return new Promise((resolve) => {
      const req = http.request({ host, port, method: 'POST', agent, ...(lookup ? { lookup } : {}) });
      req.on('response', (res) => {
        res.resume();
        resolve(String(res.statusCode));
      });
      req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      req.end('{}');
    });
  }

  /** A resolver that answers every name with the given address (as a rebinding DNS server would). */
  const resolvesTo =
    (address: string): Lookup =>
    (_host, options, cb) => {
      const family = address.includes(':') ? 6 : 4;
      if ((options as { all?: boolean }).all) cb(null, [{ address, family }]);
      else cb(null, address, family);
    };

  test.each([
    ['127.0.0.1'],
    ['::7f00:1'],
    ['::a9fe:a9fe'],
    ['::ffff:7f00:1'],
    ['64:ff9b::a9fe:a9fe'],
    ['169.254.169.254'],
    ['10.0.0.1'],
  ])('a name that resolves to %s when connecting is refused', async (address) => {
    const { http: agent } = createGuardedAgents(false);
    expect(await post(agent, 'hooks.example', resolvesTo(address))).toBe('ERR_ADDRESS_REFUSED');
    agent.destroy();
  });

  test('an address literal is refused before connecting', async () => {
    const { http: agent } = createGuardedAgents(false);
    for (const host of ['127.0.0.1', '::7f00:1', '::ffff:127.0.0.1']) {
      expect(await post(agent, host), host).toBe('ERR_ADDRESS_REFUSED');
    }
    agent.destroy();
  });

  test('with private targets allowed, loopback connects; metadata by any name still does not', async () => {
    const { http: agent } = createGuardedAgents(true);
    expect(await post(agent, '127.0.0.1')).toBe('200');
    expect(await post(agent, 'hooks.example', resolvesTo('127.0.0.1'))).toBe('200');
    // Another name: a kept-alive connection is reused per host, and was checked when it was made.
    expect(await post(agent, 'other.example', resolvesTo('::a9fe:a9fe'))).toBe('ERR_ADDRESS_REFUSED');
    agent.destroy();
  });

  test('addressProblem names what an address is', () => {
    expect(addressProblem('::a9fe:a9fe', true)).toBe('a cloud metadata address');
    expect(addressProblem('64:ff9b::7f00:1', false)).toBe('a loopback address');
    expect(addressProblem('::1', false)).toBe('a loopback address');
    expect(addressProblem('93.184.216.34', false)).toBeNull();
  });
});
