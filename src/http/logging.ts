import {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import pino, { type Bindings, type ChildLoggerOptions } from 'pino';
import { numberText } from '../lib/number-text';
import { serializeError } from './faults';
import { decodeName } from './text-checks';

/** What a redacted value reads as, in the log and in the request log (request-log/redact.ts). */
export const REDACTED = '[redacted]';

/** Names whose values never reach the log: credentials, secrets, keys, tokens. */
const SECRET_NAMES = new Set([
  'authorization',
  'Authorization',
  'cookie',
  'password',
  'client_secret',
  'secret',
  'Key',
  'access_token',
]);

/** A plain object (a literal, parsed JSON): not an array, a request, a reply or an error. */
const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** `object` with the values of secret names replaced, without changing `object`; itself when it holds none. */
function redactedLevel(object: Record<string, unknown>, depth: number): Record<string, unknown> {
  let out = object;
  for (const key in object) {
    const value = object[key];
    let replaced: unknown = value;
    if (SECRET_NAMES.has(key)) replaced = REDACTED;
    else if (depth > 0 && isPlainObject(value)) replaced = redactedLevel(value, depth - 1);
    if (replaced === value) continue;
    if (out === object) out = { ...object };
    out[key] = replaced;
  }
  return out;
}

/**
 * Every log line's object with secrets redacted: a secret name at the top or one or two levels down
 * in plain objects (`{ secret }`, `{ webhook: { secret } }`, `{ req: { headers: { authorization } } }`).
 * Objects that are not plain (the request, the reply, errors) are left to their serializers, which
 * write no headers, bodies or stored values. Written here instead of pino's path redaction, whose
 * wildcard paths cost 8 % of a price request's CPU on the access line, where nothing can match.
 */
export const redactSecrets = (object: Record<string, unknown>) => redactedLevel(object, 2);

/** What may wait for a stdout that is not being read before lines are dropped instead. */
export const MAX_LOG_BACKLOG_BYTES = 16 * 1024 * 1024;

interface LogDestination {
  write(chunk: string): unknown;
  /** Bytes written but not yet taken by the reader (a stream's `writableLength`). */
  readonly writableLength?: number;
  flush?(cb: (err?: Error) => void): void;
}

/**
 * The log's lines of one event-loop turn handed to `destination` as one write: a write per line
 * cost more than building the line. The turn's lines go out before anything else runs at exit, so a
 * crash or a signal (even SIGKILL, one turn later) loses none of them. When the reader falls behind
 * by `MAX_LOG_BACKLOG_BYTES`, lines are dropped rather than held, and the next line written says how
 * many: a log reader that stops must not stop the server or eat its memory.
 */
export function linesPerTurn(
  destination: LogDestination,
  onExit: Pick<NodeJS.Process, 'prependListener'> = process,
) {
  let lines: string[] = [];
  let dropped = 0;
  const hand = () => {
    if (lines.length === 0) return;
    if ((destination.writableLength ?? 0) > MAX_LOG_BACKLOG_BYTES) {
      dropped += lines.length;
      lines = [];
      return;
    }
    if (dropped > 0) {
      lines.unshift(
        `{"level":40,"time":${numberText(Date.now())},"dropped":${dropped},"msg":"log lines dropped: stdout was not being read"}\n`,
      );
      dropped = 0;
    }
    const chunk = lines.length === 1 ? (lines[0] as string) : lines.join('');
    lines = [];
    destination.write(chunk);
  };
  onExit.prependListener('exit', hand);
  return {
    write(line: string): boolean {
      // The turn's first line schedules the hand-over (a hand-over that finds nothing does nothing).
      if (lines.push(line) === 1) setImmediate(hand);
      return true;
    },
    /** Hands what this turn wrote so far on, and writes it (pino's `logger.flush(cb)`). */
    flush(cb?: (err?: Error) => void): void {
      hand();
      if (destination.flush) destination.flush(cb ?? (() => {}));
      else cb?.();
    },
  };
}

/**
 * The logger: JSON lines on stdout at `level`, redacted, errors without query parameters or stored
 * values (http/faults.ts). A turn's lines are one write to `process.stdout`, which Node writes at
 * once to a file or a terminal and, to a pipe (a container's log), at once when the pipe has room and
 * from a buffer when it has not, never blocking the server. Pino's own destination was either
 * synchronous, stopping the whole server while a pipe was full, or asynchronous through libuv's
 * thread pool, on the server's own core (1.1 µs of CPU a line against 0.4–0.5 for this, measured
 * with ten lines a turn). `stream` replaces stdout (tests read the log).
 */
function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    formatters: { log: redactSecrets },
    serializers: { err: serializeError, req: requestOf },
    stream: stream ?? linesPerTurn(process.stdout),
  };
}

/**
 * Query-parameter and property names whose values are secrets, whatever their case: in a logged URL
 * here, and in what the request log stores (`src/request-log/redact.ts`).
 */
export const SECRET_NAME = /^key$|secret|passw(or)?d|token|api[-_]?key|authorization|cookie/i;
/** Text that may hold such a name: nearly every URL has none, and is logged as it is. */
const MAY_NAME_A_SECRET = /key|secret|passw|token|authorization|cookie/i;

/** The URL as logged: the values of parameters named like secrets (`?access_token=…`) replaced. */
export function loggedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0 || !MAY_NAME_A_SECRET.test(url)) return url;
  const pairs = url.slice(q + 1).split('&');
  return `${url.slice(0, q + 1)}${pairs
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq > 0 && SECRET_NAME.test(decodeName(pair.slice(0, eq)))
        ? `${pair.slice(0, eq + 1)}${REDACTED}`
        : pair;
    })
    .join('&')}`;
}

/** Fastify's request serializer, with the URL as logged. */
function requestOf(req: FastifyRequest) {
  return {
    method: req.method,
    url: loggedUrl(req.url),
    version: req.headers?.['accept-version'] as string | undefined,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  };
}

/** Marks a request as a health probe (`/healthz`, `/readyz`): logged only at debug, or when it fails. */
const PROBE = Symbol('kolli.probe');
export const markProbe = (request: FastifyRequest): void => {
  (request as unknown as Record<symbol, boolean>)[PROBE] = true;
};

const { chindingsSym, streamSym } = pino.symbols;

/** A string as a JSON value; the common case (nothing to escape) without JSON.stringify's call. */
const SAFE_TEXT = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;
const jsonText = (s: string) => (SAFE_TEXT.test(s) ? `"${s}"` : JSON.stringify(s));

type Pino = pino.Logger;
type LogArgs = [unknown, ...unknown[]];
type AnyLogFn = (...args: LogArgs) => void;

/**
 * A request's logger: the root logger's child with the request id, made only when the request logs
 * something besides its access line. Most requests log nothing else, and a pino child per request
 * (its bindings serialised, its prototype chain set up) cost more than the access line itself.
 */
export class RequestLog {
  #child: Pino | null = null;

  constructor(
    readonly root: Pino,
    private readonly bindings: Bindings,
  ) {}

  /** `,"reqId":"…"`: the request id as pino writes a child's binding. */
  get idBinding(): string {
    return `,"reqId":${jsonText(String(this.bindings.reqId))}`;
  }
  private get log(): Pino {
    this.#child ??= this.root.child(this.bindings);
    return this.#child;
  }
  get level(): string {
    return (this.#child ?? this.root).level;
  }
  set level(level: string) {
    this.log.level = level;
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.root).isLevelEnabled(level);
  }
  fatal(...args: LogArgs) {
    (this.log.fatal as AnyLogFn)(...args);
  }
  error(...args: LogArgs) {
    (this.log.error as AnyLogFn)(...args);
  }
  warn(...args: LogArgs) {
    (this.log.warn as AnyLogFn)(...args);
  }
  info(...args: LogArgs) {
    (this.log.info as AnyLogFn)(...args);
  }
  debug(...args: LogArgs) {
    (this.log.debug as AnyLogFn)(...args);
  }
  trace(...args: LogArgs) {
    (this.log.trace as AnyLogFn)(...args);
  }
  silent() {}
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.log.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a `RequestLog`, or pino's own child where a route sets log options. */
export const requestLogger = (logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) =>
  Object.keys(options).length > 0
    ? logger.child(bindings, options)
    : (new RequestLog(logger as Pino, bindings) as unknown as FastifyBaseLogger);

/**
 * The access line of an answered request, written as pino writes a line (level, time, the logger's
 * bindings and the request id, then the fields) with the fields Fastify's serializers give, but built
 * as one template: pino's generic path (serializers, the log formatter, a stringify per field) cost
 * several per cent of a small answer's CPU. It holds method, path (secret parameters' values
 * replaced: `loggedUrl`), host, peer, status and time.
 */
function accessLine(log: RequestLog, request: FastifyRequest, reply: FastifyReply): string {
  const root = log.root as unknown as Record<symbol, string>;
  return `{"level":30,"time":${numberText(Date.now())}${root[chindingsSym]}${log.idBinding},"req":{"method":"${request.method}","url":${jsonText(
    loggedUrl(request.url),
  )},"host":${jsonText(request.host)},"remoteAddress":${jsonText(request.ip ?? '')},"remotePort":${
    request.raw.socket?.remotePort ?? null
  }},"res":{"statusCode":${reply.statusCode}},"responseTime":${numberText(reply.elapsedTime)},"msg":"request completed"}\n`;
}

/**
 * One access line per request, when it is answered: the request (method, path, host, peer), the
 * status and the time taken, with the request id every other line of the request carries. Fastify's
 * own pair of lines, one on arrival and one on answer, doubled the cost of logging; the arrival line
 * is kept at debug level, for finding requests that never finish. Fastify's other lines (stream
 * errors, unreadable requests) are unchanged.
 */
export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (request.log.level === 'debug' || request.log.level === 'trace')
      request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      reply.log.error(
        { req: request, res: reply, responseTime: reply.elapsedTime, err: error },
        'request errored',
      );
      return;
    }
    const log = request.log;
    if (!(log instanceof RequestLog)) {
      log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
      return;
    }
    if (!log.isLevelEnabled('info')) return;
    // A balancer's health probe every second or two would be most of the log: an answered probe is
    // a debug line, a failing one an info line as every other answer is.
    // (A mark on the request, not the route's config: `routeOptions` builds an object per read.)
    if (
      (request as unknown as Record<symbol, boolean>)[PROBE] &&
      reply.statusCode < 400 &&
      !log.isLevelEnabled('debug')
    )
      return;
    (log.root as unknown as Record<symbol, pino.DestinationStream>)[streamSym]?.write(
      accessLine(log, request, reply),
    );
  }
}

/**
 * Fastify's logging options: the logger (none at `silent`), one access line per request, and a
 * request logger made only when a request logs more than that.
 */
export function loggingOptions(
  level: string,
  stream?: NodeJS.WritableStream,
): Pick<FastifyServerOptions, 'logger' | 'logController' | 'childLoggerFactory'> {
  if (level === 'silent') return { logger: false };
  return {
    logger: loggerOptions(level, stream),
    logController: new AccessLog(),
    childLoggerFactory: requestLogger,
  };
}
