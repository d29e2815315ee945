import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { Cron } from 'croner';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { isBankAccount, isOrgNr } from './lib/mod11';

/** Every setting Kolli reads from the environment; the only place `process.env` is read. */
const ConfigSchema = Type.Object({
  nodeEnv: Type.Union([Type.Literal('development'), Type.Literal('test'), Type.Literal('production')]),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  host: Type.String({ minLength: 1 }),
  databaseUrl: Type.Union([Type.String({ pattern: '^postgres(ql)?://' }), Type.Null()]),
  dataDir: Type.String({ minLength: 1 }),
  /** PostgreSQL: the server cancels a statement running this long (`statement_timeout`; 503); 0: never. */
  databaseStatementTimeoutMs: Type.Integer({ minimum: 0 }),
  /**
   * PostgreSQL: a query unanswered this long fails as an outage (503), the last resort for a server
   * that stopped answering; 0 waits forever. Longer than the statement timeout.
   */
  databaseQueryTimeoutMs: Type.Integer({ minimum: 0 }),
  adminKey: Type.Union([Type.String({ minLength: 16 }), Type.Null()]),
  tokenSecret: Type.Union([Type.String({ minLength: 32 }), Type.Null()]),
  tokenTtlSeconds: Type.Integer({ minimum: 60, maximum: 86400 }),
  gs1Prefix: Type.String({ pattern: '^[0-9]{7,10}$' }),
  rateLimitPerMinute: Type.Integer({ minimum: 1 }),
  /** Failed authentications per client address per minute before it is refused (0: not counted). */
  authFailuresPerMinute: Type.Integer({ minimum: 0 }),
  bodyLimitBytes: Type.Integer({ minimum: 1024 }),
  requestTimeoutMs: Type.Integer({ minimum: 1000 }),
  /** Event-loop delay past which requests answer 503 (overloaded) until it recovers. */
  maxEventLoopDelayMs: Type.Integer({ minimum: 100 }),
  /** How long a price answer is replayed for the same key and URL; 0 turns it off. */
  answerCacheMs: Type.Integer({ minimum: 0, maximum: 10_000 }),
  logLevel: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
  ),
  workers: Type.Integer({ minimum: 1, maximum: 64 }),
  webhookAllowPrivate: Type.Boolean(),
  /** Whether `npm start` runs the webhook delivery worker in its processes (`npm run worker` always does). */
  webhookWorker: Type.Boolean(),
  webhookConcurrency: Type.Integer({ minimum: 1, maximum: 1000 }),
  webhookRetentionDays: Type.Integer({ minimum: 1, maximum: 3650 }),
  /** How many enabled, unexpired registrations may listen to the same eventValue (webhooks/service.ts). */
  webhooksPerEventValue: Type.Integer({ minimum: 1, maximum: 1000 }),
  /** Checked by croner itself (below): a length rule refused its nicknames, `@daily`, as too short. */
  invoiceCron: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  /** After SIGTERM, how long `/readyz` answers 503 while requests are still served (the balancer drains). */
  shutdownDrainMs: Type.Integer({ minimum: 0, maximum: 120_000 }),
  /** The carrier as it appears on its invoices (bokføringsforskriften § 5-1-1): who bills, where to pay. */
  seller: Type.Object({
    name: Type.String({ minLength: 1 }),
    /** 9 digits with a MOD11 check digit; printed followed by `MVA` (VAT registered). */
    orgNr: Type.String({ pattern: '^[0-9]{9}$' }),
    /** Address lines, from `KOLLI_SELLER_ADDRESS` split at `;`. */
    address: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    /** 11 digits with a MOD11 check digit. */
    bankAccount: Type.String({ pattern: '^[0-9]{11}$' }),
  }),
  /** Whether requests made with customers' keys are recorded (request log); on unless production. */
  requestLog: Type.Boolean(),
  requestLogRetentionHours: Type.Integer({ minimum: 1, maximum: 24 * 366 }),
  requestLogMaxPerKey: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  requestLogBodyBytes: Type.Integer({ minimum: 256, maximum: 1024 * 1024 }),
  /** Days the admin audit trail keeps its rows. */
  auditRetentionDays: Type.Integer({ minimum: 1, maximum: 3650 }),
  /** Browser origins CORS admits (`*`: any); none by default in production, any outside it. */
  corsOrigins: Type.Array(Type.Union([Type.Literal('*'), Type.String({ pattern: '^https?://[^/\\s]+$' })])),
  /**
   * The proxies (addresses, CIDR ranges, or proxy-addr's `loopback`, `uniquelocal`…) whose
   * `X-Forwarded-For` names the client (Fastify's `trustProxy`); none when empty.
   */
  trustProxy: Type.Array(Type.String({ minLength: 1 })),
  /** In production, `/metrics` is served on this port only (null: on the API port, to admin keys). */
  metricsPort: Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Null()]),
  /** The address the metrics port listens on (the monitoring network's); `HOST` by default. */
  metricsHost: Type.String({ minLength: 1 }),
  /**
   * A cluster worker's place among `workers` (0 … N − 1), set by the primary, not by hand: it serves
   * `/metrics` on `metricsPort` + this, so each worker can be scraped.
   */
  workerIndex: Type.Integer({ minimum: 0, maximum: 63 }),
});

export type Config = Readonly<Static<typeof ConfigSchema>>;

type Env = Record<string, string | undefined>;

const blank = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());
/** A switch: `1` on, `0` off; anything else is kept as text, for the schema to refuse. */
const flag = (v: string | undefined, fallback: boolean): boolean => {
  const s = blank(v);
  return (s === undefined ? fallback : s === '1' ? true : s === '0' ? false : s) as boolean;
};

/** The made-up carrier of the sandbox: invoices from it and parcel numbers under its prefix. */
const SANDBOX_DEFAULTS = {
  KOLLI_GS1_PREFIX: '7090001',
  KOLLI_SELLER_NAME: 'Kolli Sandbox AS',
  KOLLI_SELLER_ORG_NR: '921000006',
  KOLLI_SELLER_ADDRESS: 'Eksempelveien 1; 0150 OSLO',
  KOLLI_SELLER_BANK_ACCOUNT: '1234.56.78903',
} as const;

/**
 * The carrier's own settings left to the sandbox's made-up values, by variable: in production they
 * would put parcel numbers under a GS1 prefix the carrier does not own, and a made-up bank account
 * on its invoices.
 */
export function sandboxDefaultsIn(env: Env = process.env): string[] {
  return Object.keys(SANDBOX_DEFAULTS).filter((name) => blank(env[name]) === undefined);
}

/** The environment variable behind each setting, so a refused value is named as it was set. */
const VARIABLE: Record<string, string> = {
  nodeEnv: 'NODE_ENV',
  port: 'PORT',
  host: 'HOST',
  databaseUrl: 'DATABASE_URL',
  dataDir: 'KOLLI_DATA_DIR',
  databaseStatementTimeoutMs: 'KOLLI_DB_STATEMENT_TIMEOUT_MS',
  databaseQueryTimeoutMs: 'KOLLI_DB_QUERY_TIMEOUT_MS',
  adminKey: 'KOLLI_ADMIN_KEY',
  tokenSecret: 'KOLLI_TOKEN_SECRET',
  tokenTtlSeconds: 'KOLLI_TOKEN_TTL_SECONDS',
  gs1Prefix: 'KOLLI_GS1_PREFIX',
  rateLimitPerMinute: 'KOLLI_RATE_LIMIT_PER_MINUTE',
  authFailuresPerMinute: 'KOLLI_AUTH_FAILURES_PER_MINUTE',
  bodyLimitBytes: 'KOLLI_BODY_LIMIT_BYTES',
  requestTimeoutMs: 'KOLLI_REQUEST_TIMEOUT_MS',
  maxEventLoopDelayMs: 'KOLLI_MAX_EVENT_LOOP_DELAY_MS',
  answerCacheMs: 'KOLLI_ANSWER_CACHE_MS',
  logLevel: 'LOG_LEVEL',
  workers: 'KOLLI_WORKERS',
  webhookAllowPrivate: 'KOLLI_WEBHOOK_ALLOW_PRIVATE',
  webhookWorker: 'KOLLI_WEBHOOK_WORKER',
  webhookConcurrency: 'KOLLI_WEBHOOK_CONCURRENCY',
  webhookRetentionDays: 'KOLLI_WEBHOOK_RETENTION_DAYS',
  webhooksPerEventValue: 'KOLLI_WEBHOOKS_PER_EVENT_VALUE',
  invoiceCron: 'KOLLI_INVOICE_CRON',
  shutdownDrainMs: 'KOLLI_SHUTDOWN_DRAIN_MS',
  'seller.name': 'KOLLI_SELLER_NAME',
  'seller.orgNr': 'KOLLI_SELLER_ORG_NR',
  'seller.address': 'KOLLI_SELLER_ADDRESS',
  'seller.bankAccount': 'KOLLI_SELLER_BANK_ACCOUNT',
  requestLog: 'KOLLI_REQUEST_LOG',
  requestLogRetentionHours: 'KOLLI_REQUEST_LOG_RETENTION_HOURS',
  requestLogMaxPerKey: 'KOLLI_REQUEST_LOG_MAX_PER_KEY',
  requestLogBodyBytes: 'KOLLI_REQUEST_LOG_BODY_BYTES',
  auditRetentionDays: 'KOLLI_AUDIT_RETENTION_DAYS',
  corsOrigins: 'KOLLI_CORS_ORIGINS',
  trustProxy: 'KOLLI_TRUST_PROXY',
  metricsPort: 'METRICS_PORT',
  metricsHost: 'METRICS_HOST',
  workerIndex: 'KOLLI_WORKER_INDEX',
};

type SchemaNode = {
  type?: string;
  anyOf?: SchemaNode[];
  const?: unknown;
  properties?: Record<string, SchemaNode>;
};

/**
 * One line per refused setting, naming its variable: the values a choice allows, `0 or 1` for a
 * switch, else the schema's first complaint (not the union's noise about each of its branches).
 */
function settingProblems(errors: { instancePath: string; message: string }[]): string[] {
  const byKey = new Map<string, string[]>();
  for (const e of errors) {
    const [first = 'config', second] = e.instancePath.slice(1).split('/');
    const key = first === 'seller' && second ? `seller.${second}` : first;
    byKey.set(key, [...(byKey.get(key) ?? []), e.message]);
  }
  return [...byKey].map(([key, messages]) => {
    const [top = '', sub] = key.split('.');
    const schema = (ConfigSchema.properties as Record<string, SchemaNode>)[top];
    const node = sub ? schema?.properties?.[sub] : schema;
    const choices = node?.anyOf?.every((b) => b.const !== undefined) ? node.anyOf.map((b) => b.const) : null;
    const message = choices
      ? `must be one of ${choices.join(', ')}`
      : node?.type === 'boolean'
        ? 'must be 0 or 1'
        : (messages.find((m) => !/anyOf|null|constant/.test(m)) ?? messages[0]);
    return `${key}: ${VARIABLE[key] ?? key} ${message}`;
  });
}
/**
 * A whole number in decimal digits (a sign allowed); anything else is kept as text, for the schema to
 * refuse: `Number` reads `PORT=0x50` as 80 and `KOLLI_WORKERS=1e1` as 10, so a slip would start on
 * another value.
 */
const int = (v: string | undefined, fallback: number): number | string => {
  const s = blank(v);
  return s === undefined ? fallback : /^[+-]?\d+$/.test(s) ? Number(s) : s;
};

/** An address, a CIDR range (`10.0.0.0/8`) or one of proxy-addr's names, as `trustProxy` takes them. */
const isProxyAddress = (p: string) => {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(p)) return true;
  const [address = '', bits, ...rest] = p.split('/');
  const max = isIP(address) === 4 ? 32 : 128;
  return (
    isIP(address) !== 0 &&
    rest.length === 0 &&
    (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max))
  );
};

/** A comma-separated list; `undefined` when the variable is unset (an empty value is an empty list). */
const list = (v: string | undefined) =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim().replace(/\/$/, ''))
        .filter((s) => s !== '');

/**
 * Reads the configuration from an environment (default `process.env`) and checks it against
 * the schema, so a typo such as `PORT=80a` stops the server at start with a clear message.
 */
export function loadConfig(env: Env = process.env): Config {
  const production = blank(env.NODE_ENV) === 'production';
  const statementTimeoutMs = int(env.KOLLI_DB_STATEMENT_TIMEOUT_MS, 15_000);
  const candidate = {
    nodeEnv: (blank(env.NODE_ENV) ?? 'development') as 'development',
    port: int(env.PORT, 8080),
    host: blank(env.HOST) ?? '0.0.0.0',
    databaseUrl: blank(env.DATABASE_URL) ?? null,
    dataDir: resolve(blank(env.KOLLI_DATA_DIR) ?? './var'),
    databaseStatementTimeoutMs: statementTimeoutMs,
    // The server's own cancel comes first; this client-side timer fires only when the server does not
    // answer at all (a black-holed connection), or a blocked event loop delays the answer's reading.
    databaseQueryTimeoutMs: int(
      env.KOLLI_DB_QUERY_TIMEOUT_MS,
      // A refused statement timeout is reported on its own, not again as this default's.
      typeof statementTimeoutMs === 'number' && statementTimeoutMs > 0 ? statementTimeoutMs + 5_000 : 20_000,
    ),
    adminKey: blank(env.KOLLI_ADMIN_KEY) ?? null,
    tokenSecret: blank(env.KOLLI_TOKEN_SECRET) ?? null,
    tokenTtlSeconds: int(env.KOLLI_TOKEN_TTL_SECONDS, 3600),
    // A demo GS1 company prefix; a carrier sets its own.
    gs1Prefix: blank(env.KOLLI_GS1_PREFIX) ?? SANDBOX_DEFAULTS.KOLLI_GS1_PREFIX,
    rateLimitPerMinute: int(env.KOLLI_RATE_LIMIT_PER_MINUTE, 1200),
    authFailuresPerMinute: int(env.KOLLI_AUTH_FAILURES_PER_MINUTE, 0),
    // A 999-parcel booking with customs lines is about 0.5 MB; leave room for long free texts.
    bodyLimitBytes: int(env.KOLLI_BODY_LIMIT_BYTES, 4 * 1024 * 1024),
    requestTimeoutMs: int(env.KOLLI_REQUEST_TIMEOUT_MS, 30_000),
    maxEventLoopDelayMs: int(env.KOLLI_MAX_EVENT_LOOP_DELAY_MS, 2000),
    answerCacheMs: int(env.KOLLI_ANSWER_CACHE_MS, 1000),
    logLevel: blank(env.LOG_LEVEL) ?? 'info',
    workers: int(env.KOLLI_WORKERS, 1),
    webhookAllowPrivate: flag(env.KOLLI_WEBHOOK_ALLOW_PRIVATE, false),
    webhookWorker: flag(env.KOLLI_WEBHOOK_WORKER, true),
    webhookConcurrency: int(env.KOLLI_WEBHOOK_CONCURRENCY, 32),
    webhookRetentionDays: int(env.KOLLI_WEBHOOK_RETENTION_DAYS, 30),
    webhooksPerEventValue: int(env.KOLLI_WEBHOOKS_PER_EVENT_VALUE, 20),
    invoiceCron: blank(env.KOLLI_INVOICE_CRON) ?? null,
    // Behind a balancer (PostgreSQL: a fleet), long enough for its health checks to see the 503.
    shutdownDrainMs: int(env.KOLLI_SHUTDOWN_DRAIN_MS, blank(env.DATABASE_URL) ? 5000 : 0),
    // Sandbox defaults: a made-up company with well-formed numbers; a carrier sets its own.
    seller: {
      name: blank(env.KOLLI_SELLER_NAME) ?? SANDBOX_DEFAULTS.KOLLI_SELLER_NAME,
      orgNr: (blank(env.KOLLI_SELLER_ORG_NR) ?? SANDBOX_DEFAULTS.KOLLI_SELLER_ORG_NR).replace(/ /g, ''),
      address: (blank(env.KOLLI_SELLER_ADDRESS) ?? SANDBOX_DEFAULTS.KOLLI_SELLER_ADDRESS)
        .split(';')
        .map((l) => l.trim())
        .filter(Boolean),
      bankAccount: (
        blank(env.KOLLI_SELLER_BANK_ACCOUNT) ?? SANDBOX_DEFAULTS.KOLLI_SELLER_BANK_ACCOUNT
      ).replace(/[. ]/g, ''),
    },
    requestLog: flag(env.KOLLI_REQUEST_LOG, !production),
    requestLogRetentionHours: int(env.KOLLI_REQUEST_LOG_RETENTION_HOURS, 7 * 24),
    requestLogMaxPerKey: int(env.KOLLI_REQUEST_LOG_MAX_PER_KEY, 1000),
    requestLogBodyBytes: int(env.KOLLI_REQUEST_LOG_BODY_BYTES, 16 * 1024),
    auditRetentionDays: int(env.KOLLI_AUDIT_RETENTION_DAYS, 365),
    corsOrigins: list(env.KOLLI_CORS_ORIGINS) ?? (production ? [] : ['*']),
    trustProxy: list(env.KOLLI_TRUST_PROXY) ?? [],
    metricsPort: blank(env.METRICS_PORT) === undefined ? null : int(env.METRICS_PORT, 0),
    metricsHost: blank(env.METRICS_HOST) ?? blank(env.HOST) ?? '0.0.0.0',
    workerIndex: int(env.KOLLI_WORKER_INDEX, 0),
  };
  if (!Value.Check(ConfigSchema, candidate)) {
    const problems = settingProblems([...Value.Errors(ConfigSchema, candidate)]);
    throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const { seller } = candidate;
  const problems = [
    ...candidate.trustProxy
      .filter((p) => !isProxyAddress(p))
      .map((p) => `trustProxy: KOLLI_TRUST_PROXY's ${p} is no address, CIDR range or proxy-addr name`),
    // A credential with a dot is read as an access token, and one with white space cannot be sent
    // in an Authorization header: such an admin key would start the server and never sign in.
    candidate.adminKey && /[.\s]/.test(candidate.adminKey)
      ? 'adminKey: KOLLI_ADMIN_KEY must not hold a dot or white space (a dot marks an access token)'
      : null,
    queryTimeoutTooShort(candidate.databaseStatementTimeoutMs, candidate.databaseQueryTimeoutMs)
      ? 'databaseQueryTimeoutMs: KOLLI_DB_QUERY_TIMEOUT_MS must be longer than KOLLI_DB_STATEMENT_TIMEOUT_MS (or 0), so the server cancels a slow statement before the client gives up on it'
      : null,
    metricsPortsTaken(candidate)
      ? `metricsPort: METRICS_PORT must leave PORT free (the metrics ports are METRICS_PORT … METRICS_PORT + KOLLI_WORKERS − 1)`
      : null,
    candidate.metricsPort !== null && candidate.metricsPort + candidate.workers - 1 > 65535
      ? 'metricsPort: METRICS_PORT + KOLLI_WORKERS − 1 must be a port (at most 65535): each worker has its own'
      : null,
    isOrgNr(seller.orgNr) ? null : 'seller.orgNr: KOLLI_SELLER_ORG_NR fails its MOD11 check digit',
    isBankAccount(seller.bankAccount)
      ? null
      : 'seller.bankAccount: KOLLI_SELLER_BANK_ACCOUNT fails its MOD11 check digit',
  ].filter((p) => p !== null);
  if (problems.length) throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  if (candidate.invoiceCron) {
    try {
      new Cron(candidate.invoiceCron, { paused: true, timezone: 'Europe/Oslo' }).stop();
    } catch (err) {
      const why = err instanceof Error ? err.message : err;
      throw new Error(
        `Invalid configuration:\n  invoiceCron: KOLLI_INVOICE_CRON is no cron expression (${why})`,
      );
    }
  }
  return Object.freeze(candidate);
}

/** Whether a worker's metrics port (`METRICS_PORT` + its index) would be the API's port. */
const metricsPortsTaken = (c: { port: number; metricsPort: number | null; workers: number }) =>
  c.metricsPort !== null &&
  c.metricsPort !== 0 &&
  c.port >= c.metricsPort &&
  c.port < c.metricsPort + c.workers;

/**
 * A client-side timeout that would fire before the server's cancel abandons the statement still
 * running on the server, holding its locks, and reports a slow query as an unreachable database.
 */
const queryTimeoutTooShort = (statementMs: number, queryMs: number) =>
  statementMs > 0 && queryMs > 0 && queryMs <= statementMs;

export const isProduction = (config: Config) => config.nodeEnv === 'production';

/**
 * Why the server must not start, or null: in production, an installation that nobody can
 * administer (no `KOLLI_ADMIN_KEY`, no stored admin key) is a mistake, not a state. One line, saying
 * what to set. `hasStoredAdminKey` is asked only when it matters.
 */
export async function startProblem(
  config: Config,
  hasStoredAdminKey: () => Promise<boolean>,
): Promise<string | null> {
  if (!isProduction(config) || config.adminKey) return null;
  if (await hasStoredAdminKey()) return null;
  return 'Refusing to start: NODE_ENV=production without KOLLI_ADMIN_KEY and without a stored admin API key; set KOLLI_ADMIN_KEY to a secret of at least 16 characters.';
}
