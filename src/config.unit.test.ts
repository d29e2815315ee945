import { describe, expect, test } from 'vitest';
import { loadConfig, startProblem } from './config';

describe('loadConfig', () => {
  test('defaults run the embedded database on port 8080', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: null,
      workers: 1,
      nodeEnv: 'development',
    });
    expect(config.dataDir).toMatch(/var$/);
    expect(Object.isFrozen(config)).toBe(true);
  });

  test('a malformed value stops the start with the setting named', () => {
    expect(() => loadConfig({ PORT: '80a' })).toThrow(/port/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/databaseUrl/);
    expect(() => loadConfig({ KOLLI_ADMIN_KEY: 'short' })).toThrow(/adminKey/);
    // It would start, and never sign in: a dot marks an access token, a space ends the header's credential.
    expect(() => loadConfig({ KOLLI_ADMIN_KEY: 'audit.admin.key.0123456789' })).toThrow(/adminKey.*dot/);
    expect(() => loadConfig({ KOLLI_ADMIN_KEY: 'audit admin key 0123456789' })).toThrow(/adminKey/);
    expect(() => loadConfig({ KOLLI_TRUST_PROXY: '10.0.0.0/8,balancer' })).toThrow(/trustProxy.*balancer/);
    expect(() => loadConfig({ KOLLI_TRUST_PROXY: '10.0.0.0/33' })).toThrow(/trustProxy/);
    expect(loadConfig({ KOLLI_TRUST_PROXY: '10.0.0.0/8, ::1, loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '::1',
      'loopback',
    ]);
    expect(loadConfig({}).trustProxy).toEqual([]);
    expect(() => loadConfig({ KOLLI_INVOICE_CRON: '0 2 * * * * * *' })).toThrow(/invoiceCron/);
    expect(() => loadConfig({ KOLLI_INVOICE_CRON: '0 75 * * *' })).toThrow(/invoiceCron/);
    expect(loadConfig({ KOLLI_INVOICE_CRON: '0 2 * * *' }).invoiceCron).toBe('0 2 * * *');
  });

  test('KOLLI_INVOICE_CRON: whatever croner reads, its nicknames too; croner says what is wrong with the rest', () => {
    // Once refused as "must not have fewer than 9 characters", which said nothing of cron.
    expect(loadConfig({ KOLLI_INVOICE_CRON: '@daily' }).invoiceCron).toBe('@daily');
    expect(() => loadConfig({ KOLLI_INVOICE_CRON: '0 2 * *' })).toThrow(
      /invoiceCron: KOLLI_INVOICE_CRON is no cron expression \(.*exactly five, six, or seven space separated parts/,
    );
  });

  test('a number is decimal digits: hex, exponents and the like are refused, not read as another value', () => {
    // `Number` read PORT=0x50 as 80, and KOLLI_WORKERS=1e1 as ten processes.
    expect(() => loadConfig({ PORT: '0x50' })).toThrow('port: PORT must be integer');
    expect(() => loadConfig({ KOLLI_WORKERS: '1e1' })).toThrow('workers: KOLLI_WORKERS must be integer');
    expect(() => loadConfig({ KOLLI_BODY_LIMIT_BYTES: '0b10000000000' })).toThrow(/KOLLI_BODY_LIMIT_BYTES/);
    expect(() => loadConfig({ METRICS_PORT: '9e3' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ PORT: '-1' })).toThrow('port: PORT must be >= 0');
    expect(loadConfig({ PORT: ' 8081 ', KOLLI_WORKERS: '08' })).toMatchObject({ port: 8081, workers: 8 });
    expect(loadConfig({ PORT: '+8081' }).port).toBe(8081);
    // A refused statement timeout is one line: the query timeout's default, built from it, is not
    // reported too (it had been, as '1e4' + 5000 made '1e45000').
    const refused = (() => {
      try {
        loadConfig({ KOLLI_DB_STATEMENT_TIMEOUT_MS: '1e4' });
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })();
    expect(refused).toContain('KOLLI_DB_STATEMENT_TIMEOUT_MS must be integer');
    expect(refused).not.toContain('KOLLI_DB_QUERY_TIMEOUT_MS');
  });

  test('each refusal names its variable; a choice lists its values, a switch is 0 or 1', () => {
    // Once `port: must be integer` and a union's noise; and `NODE_ENV=prod` ran the sandbox on a
    // production database, `KOLLI_WEBHOOK_WORKER=false` meant on.
    expect(() => loadConfig({ PORT: '80a' })).toThrow(/PORT must be integer/);
    expect(() => loadConfig({ NODE_ENV: 'prod' })).toThrow(
      /^Invalid configuration:\n {2}nodeEnv: NODE_ENV must be one of development, test, production$/,
    );
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow(/LOG_LEVEL must be one of fatal, error, warn/);
    for (const name of ['KOLLI_WEBHOOK_WORKER', 'KOLLI_REQUEST_LOG', 'KOLLI_WEBHOOK_ALLOW_PRIVATE']) {
      expect(() => loadConfig({ [name]: 'false' })).toThrow(new RegExp(`${name} must be 0 or 1`));
    }
    expect(loadConfig({ KOLLI_WEBHOOK_WORKER: '0', KOLLI_WEBHOOK_ALLOW_PRIVATE: '1' })).toMatchObject({
      webhookWorker: false,
      webhookAllowPrivate: true,
    });
    expect(() => loadConfig({ KOLLI_ADMIN_KEY: 'short' })).toThrow(
      /^Invalid configuration:\n {2}adminKey: KOLLI_ADMIN_KEY must not have fewer than 16 characters$/,
    );
    expect(() => loadConfig({ KOLLI_SELLER_ADDRESS: ';' })).toThrow(/KOLLI_SELLER_ADDRESS/);
  });

  test('database timeouts: the server cancels at the statement timeout, the client gives up 5 s later', () => {
    expect(loadConfig({})).toMatchObject({
      databaseStatementTimeoutMs: 15_000,
      databaseQueryTimeoutMs: 20_000,
    });
    expect(loadConfig({ KOLLI_DB_STATEMENT_TIMEOUT_MS: '60000' })).toMatchObject({
      databaseStatementTimeoutMs: 60_000,
      databaseQueryTimeoutMs: 65_000,
    });
    expect(loadConfig({ KOLLI_DB_STATEMENT_TIMEOUT_MS: '0' }).databaseQueryTimeoutMs).toBe(20_000);
    expect(
      loadConfig({ KOLLI_DB_STATEMENT_TIMEOUT_MS: '0', KOLLI_DB_QUERY_TIMEOUT_MS: '100' })
        .databaseQueryTimeoutMs,
    ).toBe(100);
    expect(loadConfig({ KOLLI_DB_QUERY_TIMEOUT_MS: '0' }).databaseQueryTimeoutMs).toBe(0);
    // A client timer that fires first leaves the statement running on the server, holding its locks.
    expect(() => loadConfig({ KOLLI_DB_QUERY_TIMEOUT_MS: '15000' })).toThrow(
      /KOLLI_DB_QUERY_TIMEOUT_MS must be longer than KOLLI_DB_STATEMENT_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ KOLLI_DB_STATEMENT_TIMEOUT_MS: '-1' })).toThrow(/databaseStatementTimeoutMs/);
  });

  test('the seller on invoices: sandbox defaults with valid MOD11 numbers, or the configured ones, checked', () => {
    expect(loadConfig({}).seller).toEqual({
      name: 'Kolli Sandbox AS',
      orgNr: '921000006',
      address: ['Eksempelveien 1', '0150 OSLO'],
      bankAccount: '12345678903',
    });
    const own = loadConfig({
      KOLLI_SELLER_NAME: 'Fjordfrakt AS',
      KOLLI_SELLER_ORG_NR: '974 760 673',
      KOLLI_SELLER_ADDRESS: 'Postboks 900 ; 8910 BRØNNØYSUND',
      KOLLI_SELLER_BANK_ACCOUNT: '1234 56 78903',
    }).seller;
    expect(own).toEqual({
      name: 'Fjordfrakt AS',
      orgNr: '974760673',
      address: ['Postboks 900', '8910 BRØNNØYSUND'],
      bankAccount: '12345678903',
    });
    expect(() => loadConfig({ KOLLI_SELLER_ORG_NR: '921000007' })).toThrow(/seller\.orgNr.*MOD11/);
    expect(() => loadConfig({ KOLLI_SELLER_ORG_NR: '92100000' })).toThrow(
      /seller.orgNr: KOLLI_SELLER_ORG_NR/,
    );
    expect(() => loadConfig({ KOLLI_SELLER_BANK_ACCOUNT: '12345678904' })).toThrow(/seller\.bankAccount/);
  });

  test('blank values count as unset', () => {
    expect(loadConfig({ DATABASE_URL: '  ', PORT: '' })).toMatchObject({ databaseUrl: null, port: 8080 });
  });
});

describe('startProblem', () => {
  const stored = (has: boolean) => async () => has;
  const asked = () => {
    throw new Error('the database need not be asked');
  };

  test('production without KOLLI_ADMIN_KEY and without a stored admin key refuses, in one line naming the setting', async () => {
    const problem = await startProblem(loadConfig({ NODE_ENV: 'production' }), stored(false));
    expect(problem).toMatch(/KOLLI_ADMIN_KEY/);
    expect(problem).not.toContain('\n');
  });

  test('production starts with KOLLI_ADMIN_KEY, or with a stored admin key', async () => {
    const withKey = loadConfig({ NODE_ENV: 'production', KOLLI_ADMIN_KEY: 'a-production-admin-key' });
    expect(await startProblem(withKey, asked)).toBeNull();
    expect(await startProblem(loadConfig({ NODE_ENV: 'production' }), stored(true))).toBeNull();
  });

  test('outside production nothing is required', async () => {
    expect(await startProblem(loadConfig({}), asked)).toBeNull();
  });
});

describe('request log settings', () => {
  test('on by default in the sandbox, off by default in production, either way by KOLLI_REQUEST_LOG', () => {
    expect(loadConfig({}).requestLog).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).requestLog).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', KOLLI_REQUEST_LOG: '1' }).requestLog).toBe(true);
    expect(loadConfig({ KOLLI_REQUEST_LOG: '0' }).requestLog).toBe(false);
  });

  test('retention and body cap are configurable and checked', () => {
    const c = loadConfig({ KOLLI_REQUEST_LOG_RETENTION_HOURS: '48', KOLLI_REQUEST_LOG_MAX_PER_KEY: '10' });
    expect([c.requestLogRetentionHours, c.requestLogMaxPerKey, c.requestLogBodyBytes]).toEqual([
      48, 10, 16384,
    ]);
    expect(() => loadConfig({ KOLLI_REQUEST_LOG_MAX_PER_KEY: '0' })).toThrow(/requestLogMaxPerKey/);
  });
});

describe('CORS and metrics settings (issue 20)', () => {
  test('KOLLI_CORS_ORIGINS: a comma-separated list; none by default in production, any outside it', () => {
    expect(loadConfig({}).corsOrigins).toEqual(['*']);
    expect(loadConfig({ NODE_ENV: 'production' }).corsOrigins).toEqual([]);
    expect(
      loadConfig({ NODE_ENV: 'production', KOLLI_CORS_ORIGINS: 'https://a.example, http://b.example:8080/' })
        .corsOrigins,
    ).toEqual(['https://a.example', 'http://b.example:8080']);
    expect(() => loadConfig({ KOLLI_CORS_ORIGINS: 'a.example' })).toThrow(/corsOrigins/);
  });

  test('METRICS_PORT: a port, or unset', () => {
    expect(loadConfig({}).metricsPort).toBeNull();
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(() => loadConfig({ METRICS_PORT: 'x' })).toThrow(/metricsPort/);
  });

  test('METRICS_PORT … + KOLLI_WORKERS − 1 are the workers’ metrics ports, never PORT; METRICS_HOST is HOST’s by default', () => {
    // Once accepted: the server logged "listening", then stopped, the metrics port taken by itself.
    expect(() => loadConfig({ PORT: '9464', METRICS_PORT: '9464' })).toThrow(
      /METRICS_PORT must leave PORT free/,
    );
    expect(() => loadConfig({ PORT: '9466', METRICS_PORT: '9464', KOLLI_WORKERS: '4' })).toThrow(/PORT free/);
    expect(loadConfig({ PORT: '9468', METRICS_PORT: '9464', KOLLI_WORKERS: '4' }).metricsPort).toBe(9464);
    expect(() => loadConfig({ METRICS_PORT: '65535', KOLLI_WORKERS: '2' })).toThrow(/at most 65535/);
    expect(loadConfig({ HOST: '10.0.0.5' }).metricsHost).toBe('10.0.0.5');
    expect(loadConfig({ HOST: '10.0.0.5', METRICS_HOST: '10.9.0.5' }).metricsHost).toBe('10.9.0.5');
    expect(loadConfig({}).workerIndex).toBe(0);
  });
});
