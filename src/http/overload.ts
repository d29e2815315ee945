import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './problem';

/**
 * What a request meets while the event loop is overloaded (`@fastify/under-pressure`, app.ts):
 * a 503 problem with `Retry-After`, so clients back off and load balancers (`/readyz`) take the
 * process out of rotation until it has caught up.
 */
export function shedUnderPressure(
  _request: FastifyRequest,
  reply: FastifyReply,
  type: string,
  value: number | undefined,
): void {
  // A sample window without a single event-loop sample reads as Infinity. That happens when the
  // loop never reached its timer phase (in-process `inject` with PGlite runs as one microtask
  // chain), not under real load, where a blocked loop records one long sample. Let it pass.
  if (type === 'eventLoopDelay' && !Number.isFinite(value)) return;
  reply.header('retry-after', '5');
  sendProblem(reply, 503, { detail: 'The server is overloaded; try again shortly.' });
}

/**
 * A route's `pressureHandler` that lets it answer under overload: liveness (`/healthz`: a busy
 * process is alive, and a probe that restarted it would drop all it was doing) and `/metrics` (a
 * scrape is most wanted then).
 */
export const answeredUnderPressure = (): void => undefined;
