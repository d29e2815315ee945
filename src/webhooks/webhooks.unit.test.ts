import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../config';
import type { DeliveryEngine } from './delivery';
import { checkCustomHeaders } from './headers';
import { parseRetryAfter } from './send';
import { secretProblem, signatureHeaders } from './signing';
import { addMonths, formatWithOffset, parseDateTime } from './times';
import { addressProblem, urlProblem } from './url-guard';
import { startWebhookWorker } from './worker';

const publicLookup = async () => ['93.184.216.34'];
const privateLookup = async () => ['10.1.2.3'];

describe('url guard', () => {
  test.each([
    '127.0.0.1',
    '127.1.2.3',
    '::1',
    '::ffff:127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.0.1',
    '169.254.169.254',
    '169.254.1.1',
    '100.64.0.1',
    'fc00::1',
    'fe80::1',
    '0.0.0.0',
    '::',
    '224.0.0.1',
    '255.255.255.255',
  ])('%s is refused when private targets are not allowed', (address) => {
    expect(addressProblem(address, false)).not.toBeNull();
  });

  test('public addresses pass; metadata addresses never pass, even when private ones are allowed', () => {
    expect(addressProblem('93.184.216.34', false)).toBeNull();
    expect(addressProblem('2606:2800:220:1:248:1893:25c8:1946', false)).toBeNull();
    expect(addressProblem('10.0.0.1', true)).toBeNull();
    expect(addressProblem('127.0.0.1', true)).toBeNull();
    expect(addressProblem('169.254.169.254', true)).toMatch(/metadata/);
    expect(addressProblem('::ffff:169.254.169.254', true)).toMatch(/metadata/);
    expect(addressProblem('fd00:ec2::254', true)).toMatch(/metadata/);
    expect(addressProblem('0.0.0.0', true)).toMatch(/unspecified/);
  });

  test('a host name is checked by what it resolves to', async () => {
    expect(
      await urlProblem('https://hooks.example/x', { allowPrivate: false, lookup: publicLookup }),
    ).toBeNull();
    expect(
      await urlProblem('https://intranet.example/x', { allowPrivate: false, lookup: privateLookup }),
    ).toMatch(/10\.1\.2\.3/);
    const failing = async () => {
      throw new Error('ENOTFOUND');
    };
    expect(await urlProblem('https://nowhere.example/x', { allowPrivate: false, lookup: failing })).toMatch(
      /could not be resolved/,
    );
  });

  test('decimal, octal and hex forms of loopback are loopback', async () => {
    for (const url of ['https://2130706433/', 'https://0177.0.0.1/', 'https://0x7f.1/', 'https://127.1/']) {
      expect(await urlProblem(url, { allowPrivate: false }), url).toMatch(/loopback/);
    }
  });

  test('http only on loopback and only with the setting on', async () => {
    expect(await urlProblem('http://127.0.0.1:3000/x', { allowPrivate: true })).toBeNull();
    expect(await urlProblem('http://[::1]:3000/x', { allowPrivate: true })).toBeNull();
    expect(await urlProblem('http://localhost:3000/x', { allowPrivate: true })).toBeNull();
    expect(await urlProblem('http://127.0.0.1:3000/x', { allowPrivate: false })).toMatch(/https/);
    expect(await urlProblem('http://hooks.example/x', { allowPrivate: true, lookup: publicLookup })).toMatch(
      /https/,
    );
  });
});

describe('custom headers', () => {
  test('valid headers are normalised to compact JSON', () => {
    expect(checkCustomHeaders('{ "X-A" : "1" }')).toEqual({ ok: true, text: '{"X-A":"1"}' });
    expect(checkCustomHeaders({ 'X-B': 'æøå' })).toEqual({ ok: true, text: '{"X-B":"æøå"}' });
    expect(checkCustomHeaders('{}')).toEqual({ ok: true, text: null });
    expect(checkCustomHeaders('')).toEqual({ ok: true, text: null });
  });

  test('every reserved name is refused, in any case', () => {
    for (const name of [
      'Host',
      'CONTENT-TYPE',
      'content-length',
      'Connection',
      'Transfer-Encoding',
      'User-Agent',
      'webhook-id',
      'Webhook-Timestamp',
      'WEBHOOK-SIGNATURE',
      'webhook-anything',
    ]) {
      const result = checkCustomHeaders({ [name]: 'x' });
      expect(result.ok, name).toBe(false);
    }
  });

  test('more than 20 headers, or a value over 1024 characters, is refused', () => {
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-${i}`, 'v']));
    expect(checkCustomHeaders(many).ok).toBe(false);
    expect(checkCustomHeaders({ 'X-Long': 'a'.repeat(1025) }).ok).toBe(false);
  });

  test('whatever is accepted, Node’s http client accepts too', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 20 })), (headers) => {
        const result = checkCustomHeaders(headers);
        if (!result.ok || result.text === null) return;
        const parsed = JSON.parse(result.text) as Record<string, string>;
        for (const [name, value] of Object.entries(parsed)) {
          expect(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)).toBe(true);
          expect(/[\r\n\0]/.test(value)).toBe(false);
        }
      }),
    );
  });
});

describe('signing', () => {
  test('the signature verifies with the standardwebhooks library, for both kinds of secret', () => {
    const at = new Date('2026-11-23T10:15:00.750Z');
    const body = '{"type":"shipment.published","timestamp":"2026-11-23T10:15:00.000Z","data":{}}';
    for (const [secret, verifier] of [
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')],
      ['plain secret', new Webhook(new Uint8Array(Buffer.from('plain secret')), { format: 'raw' })],
    ] as const) {
      const headers = signatureHeaders(secret, 'msg_1', at, body);
      expect(headers['webhook-timestamp']).toBe('1795428900');
      // verify() checks the timestamp against now, so check the signature itself.
      expect(headers['webhook-signature']).toBe(verifier.sign('msg_1', new Date(1795428900_000), body));
    }
  });

  test('secret rules', () => {
    expect(secretProblem('anything goes')).toBeNull();
    expect(secretProblem('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBeNull();
    expect(secretProblem('   ')).not.toBeNull();
    expect(secretProblem('whsec_abc')).not.toBeNull(); // not a whole number of base64 quads
    expect(secretProblem('whsec_ab$d')).not.toBeNull();
  });
});

describe('times', () => {
  test('expires is read with its offset, or as Oslo time, and written with the Oslo offset', () => {
    expect(parseDateTime('2026-11-23T10:15:00+01:00')?.toISOString()).toBe('2026-11-23T09:15:00.000Z');
    expect(parseDateTime('2026-11-23T10:15:00Z')?.toISOString()).toBe('2026-11-23T10:15:00.000Z');
    expect(parseDateTime('2026-07-01T10:15:00')?.toISOString()).toBe('2026-07-01T08:15:00.000Z');
    expect(parseDateTime('2026-07-01')?.toISOString()).toBe('2026-06-30T22:00:00.000Z');
    expect(parseDateTime('2026-02-30T00:00:00Z')).toBeNull();
    expect(parseDateTime('soon')).toBeNull();
    expect(parseDateTime('2026-11-23 10:15:00.123456789+01:00')?.toISOString()).toBe(
      '2026-11-23T09:15:00.123Z',
    );
    // As every Oslo time the API reads: 02:30 on 25 October 2026 is the first of its two (CEST).
    expect(parseDateTime('2026-10-25T02:30:00')?.toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(formatWithOffset(new Date('2026-11-23T09:15:00Z'))).toBe('2026-11-23T10:15:00+01:00');
    expect(formatWithOffset(new Date('2026-07-01T08:15:00Z'))).toBe('2026-07-01T10:15:00+02:00');
  });

  test('a written expires reads back as the same instant', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
        (d) => {
          const whole = new Date(Math.floor(d.getTime() / 1000) * 1000);
          expect(parseDateTime(formatWithOffset(whole))?.getTime()).toBe(whole.getTime());
        },
      ),
    );
  });

  test('two months ahead keeps the day, or the end of a shorter month', () => {
    expect(addMonths(new Date('2026-01-15T12:00:00Z'), 2).toISOString()).toBe('2026-03-15T12:00:00.000Z');
    expect(addMonths(new Date('2026-12-31T12:00:00Z'), 2).toISOString()).toBe('2027-02-28T12:00:00.000Z');
  });
});

describe('Retry-After', () => {
  const now = new Date('2026-11-23T10:00:00Z');
  test('seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});

describe('configuration', () => {
  test('worker settings and their defaults', () => {
    const defaults = loadConfig({});
    expect(defaults).toMatchObject({
      webhookWorker: true,
      webhookConcurrency: 32,
      webhookRetentionDays: 30,
      webhookAllowPrivate: false,
    });
    const set = loadConfig({
      KOLLI_WEBHOOK_WORKER: '0',
      KOLLI_WEBHOOK_CONCURRENCY: '4',
      KOLLI_WEBHOOK_RETENTION_DAYS: '7',
      KOLLI_WEBHOOK_ALLOW_PRIVATE: '1',
    });
    expect(set).toMatchObject({
      webhookWorker: false,
      webhookConcurrency: 4,
      webhookRetentionDays: 7,
      webhookAllowPrivate: true,
    });
    expect(() => loadConfig({ KOLLI_WEBHOOK_CONCURRENCY: '0' })).toThrow(/webhookConcurrency/);
  });
});

describe('the worker on the embedded database', () => {
  /** An engine that fans out `batches` events one round after another and records what it is asked. */
  function fakeEngine(batches: number[]) {
    const asked = { analyze: 0, rounds: 0 };
    const engine = {
      fanOut: async () => batches.shift() ?? 0,
      sweep: async () => {},
      analyze: async () => {
        asked.analyze += 1;
      },
      claim: async () => {
        asked.rounds += 1;
        return [];
      },
    } as unknown as DeliveryEngine;
    return { engine, asked };
  }

  test('gathers the delivery tables’ statistics after every 100 events fanned out (PGlite has no autovacuum)', async () => {
    for (const [analyze, analyzed] of [
      [true, 1],
      [false, 0],
    ] as const) {
      // 200 + 30 events in the first round (gathered once), then 40 and 40: 80 since, not yet.
      const { engine, asked } = fakeEngine([200, 30, 40, 40]);
      const worker = startWebhookWorker({ engine, analyze, pollMs: 1 });
      while (asked.rounds < 5) await new Promise((resolve) => setTimeout(resolve, 5));
      await worker.stop();
      expect(asked.analyze, `analyze ${analyze}`).toBe(analyzed);
    }
  });
});

describe('the worker while the database is away', () => {
  test('says when its rounds fail and when they succeed again, once each', async () => {
    let failing = 3;
    let rounds = 0;
    const engine = {
      fanOut: async () => {
        rounds += 1;
        if (failing > 0) {
          failing -= 1;
          throw new Error('connect ECONNREFUSED');
        }
        return 0;
      },
      sweep: async () => {},
      claim: async () => [],
    } as unknown as DeliveryEngine;
    const lines: string[] = [];
    const log = {
      info: (_: object, msg: string) => lines.push(msg),
      warn: (_: object, msg: string) => lines.push(msg),
      error() {},
    };
    const worker = startWebhookWorker({ engine, log, pollMs: 1 });
    while (rounds < 6) await new Promise((resolve) => setTimeout(resolve, 5));
    await worker.stop();
    expect(lines).toEqual(['webhook worker round failed', 'webhook worker rounds succeed again']);
  });
});
