import type { Db } from '../db/client';
import { fleetCounter } from '../http/rate-limit';

/**
 * Failed authentications per client address (`request.ip`; behind a balancer, see
 * `KOLLI_TRUST_PROXY`), counted for the fleet as a whole on PostgreSQL (`shared`; in this process on
 * the embedded database), so more hosts give a guesser no more tries. An address past the limit is
 * refused (429) every credential this process does not hold as valid already, for the rest of its
 * minute: a correct guess is then refused as a wrong one, so guessing keys (or an operator-chosen
 * admin key) online learns nothing. (Each guess is still looked up: the lookup and this count are
 * asked together.)
 */
export function failureThrottle(perMinute: number, shared: Db | null) {
  // Off by default: behind a balancer without KOLLI_TRUST_PROXY every client shares one address,
  // and one client's failures would lock everyone out.
  if (perMinute === 0)
    return { blockedFor: async (_address: string) => null, failed: async (_address: string) => {} };
  const failures = fleetCounter(shared, { keyPrefix: 'authfail', points: perMinute });
  return {
    /** Milliseconds until the address may try again, or null when it may now. */
    async blockedFor(address: string): Promise<number | null> {
      const seen = await failures.get(address);
      return seen && seen.consumedPoints >= perMinute ? Math.max(1, seen.msBeforeNext) : null;
    },
    /**
     * Counts one failed authentication of the address; the refusal is answered once it is counted,
     * so a guesser's next try (on any host) already sees it. A count that cannot be written is let go:
     * the library's per-process count stands in while the database is away.
     */
    async failed(address: string): Promise<void> {
      await failures.penalty(address, 1).catch(() => {});
    },
  };
}

export type FailureThrottle = ReturnType<typeof failureThrottle>;
