import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import pino from 'pino';
import { serializeError } from './faults';

/** Log redaction: credentials and secrets never reach the log. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.password',
  '*.client_secret',
  '*.secret',
  '*.Key',
  '*.access_token',
];

/**
 * The logger: JSON lines on stdout at `level`, redacted, errors without query parameters or stored
 * values (http/faults.ts). Lines are written in batches of 4 KB, and at least once a second, instead
 * of one write per line: on a busy server the write per line cost more than the line. Pino writes
 * what is left when the process exits (also after an uncaught error); only a SIGKILL can lose the
 * last second. `stream` replaces stdout (tests read the log).
 */
export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  if (level === 'silent') return false;
  return {
    level,
    redact: { paths: REDACT, censor: '[redacted]' },
    serializers: { err: serializeError },
    stream: stream ?? pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 1000 }),
  };
}

/**
 * One access line per request, when it is answered: the request (method, path, host, peer), the
 * status and the time taken, with the request id every other line of the request carries. (Fastify's
 * own pair of lines, one on arrival and one on answer, doubled the cost of logging; the arrival line
 * is kept at debug level, for finding requests that never finish.)
 */
export function installAccessLog(app: FastifyInstance): void {
  if (app.log.level === 'debug' || app.log.level === 'trace') {
    app.addHook('onRequest', (request, _reply, done) => {
      request.log.debug({ req: request }, 'incoming request');
      done();
    });
  }
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });
}
