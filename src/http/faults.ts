/**
 * Faults that are not bugs, and errors as the log may see them.
 *
 * A database that is stopped, restarting or unreachable is an outage, not a fault of the request:
 * it answers 503 with `Retry-After` (CONTRACT §4). And a failed query must not put its parameters
 * into the log: Drizzle's error message carries them (`Failed query: … params: <key hash>`), and
 * PostgreSQL's `detail` repeats values (`Key (key_hash)=(…) already exists.`).
 */

/** Socket errors of a connection to the database that could not be made or was lost. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs of an unavailable server: class 08 (connection exception) but 08P01, a
 * protocol violation (a statement of over 65 535 parameters: a bug, not an outage), 57P01–57P03
 * (administrator or crash shutdown, cannot connect now: a restart) and 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08(?!P01)...|57P0[1-3]|53300)$/;

/** A server that is not accepting connections (`ALLOW_CONNECTIONS false`, SQLSTATE 55000). */
const NOT_ACCEPTING = /is not currently accepting connections/;

/** node-postgres reports a lost or unobtainable connection by message alone. */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Query read timeout)/;

type ErrorLike = { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; syscall?: unknown };

/** True when the error or any error it wraps (`cause`, `AggregateError.errors`) passes `test`. */
function anyWrapped(error: unknown, test: (e: ErrorLike) => boolean, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 8) return false;
  const e = error as ErrorLike;
  if (test(e)) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => anyWrapped(x, test, depth + 1))) return true;
  return anyWrapped(e.cause, test, depth + 1);
}

function isUnavailable(e: ErrorLike): boolean {
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || UNAVAILABLE_SQLSTATE.test(e.code))) {
    return true;
  }
  // A Unix socket whose server stopped is gone: connecting to it fails with ENOENT.
  if (e.code === 'ENOENT' && e.syscall === 'connect') return true;
  if (e.code === '55000' && typeof e.message === 'string' && NOT_ACCEPTING.test(e.message)) return true;
  return typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message);
}

/** True when the error, or any error it wraps, is a database outage. */
export const isDatabaseUnavailable = (error: unknown): boolean => anyWrapped(error, isUnavailable);

/**
 * True when the server cancelled the statement (SQLSTATE 57014): it ran past
 * `KOLLI_DB_STATEMENT_TIMEOUT_MS`, or an operator cancelled it. Not the request's fault and not a
 * bug of the code: an overloaded or locked database, answered 503 so the client tries again.
 */
export const isStatementCancelled = (error: unknown): boolean => anyWrapped(error, (e) => e.code === '57014');

/** What of a PostgreSQL error may be logged: where and why, never the values. */
const SAFE_FIELDS = ['code', 'severity', 'routine', 'table', 'column', 'constraint', 'schema'] as const;

/** Drizzle's message is `Failed query: <sql>\nparams: <values>`; the values go. */
const scrub = (message: string) => message.replace(/\nparams:[\s\S]*$/, '');

export interface LoggedError {
  type: string;
  message: string;
  stack: string;
  [field: string]: unknown;
}

function serializeCause(cause: unknown, depth: number): unknown {
  if (cause instanceof Error) return depth > 4 ? { type: cause.name } : serializeError(cause, depth);
  return typeof cause === 'string' ? scrub(cause) : undefined;
}

/**
 * The log's serializer for errors (pino's `err`): type, message, stack, the safe fields of a
 * PostgreSQL error and its cause, but never query parameters nor PostgreSQL's `detail`, `where` or
 * `hint` (they repeat stored values), nor any other property an error carries.
 */
export function serializeError(error: Error, depth = 0): LoggedError {
  if (!(error instanceof Error)) return { type: typeof error, message: scrub(String(error)), stack: '' };
  const message = scrub(String(error.message));
  // The stack's first lines repeat the message.
  const at = error.stack?.indexOf('\n    at ') ?? -1;
  const out: LoggedError = {
    type: error.constructor?.name ?? error.name,
    message,
    stack: `${error.name}: ${message}${at >= 0 ? error.stack?.slice(at) : ''}`,
  };
  const fields = error as unknown as Record<string, unknown>;
  for (const f of SAFE_FIELDS) if (typeof fields[f] === 'string') out[f] = fields[f];
  if (typeof fields.statusCode === 'number') out.statusCode = fields.statusCode;
  const cause = serializeCause(error.cause, depth + 1);
  if (cause !== undefined) out.cause = cause;
  return out;
}
