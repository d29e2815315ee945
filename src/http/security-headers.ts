import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An HTML page (the API reference), which gets the security headers for documents. */
    page?: boolean;
  }
}

/**
 * The security headers helmet sets, worked out once at start. Helmet decides the headers and their
 * values; running its middleware on every request cost about a third of the throughput of a small
 * JSON answer, while the result never changes for a given configuration.
 */
export function securityHeaders(options: Readonly<HelmetOptions>): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let failed: unknown = null;
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (err?: unknown) => {
    failed = err ?? null;
  });
  if (failed) throw failed;
  return Object.freeze(headers);
}

/**
 * Helmet for JSON answers: a policy that loads nothing and cannot be framed, HSTS, no sniffing,
 * same-site resources; the headers that only mean something to an HTML document are left out.
 */
const API_SECURITY: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
  crossOriginResourcePolicy: { policy: 'same-site' },
  xFrameOptions: { action: 'deny' },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
};

/** Helmet's defaults for the docs page, without a CSP: the page runs Scalar's inline bootstrap. */
const PAGE_SECURITY: HelmetOptions = {
  contentSecurityPolicy: false,
  crossOriginResourcePolicy: { policy: 'same-site' },
};

/** The headers of every API answer: the API set, and no caching of answers that carry a caller's data. */
export const API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...securityHeaders(API_SECURITY),
  'cache-control': 'no-store',
});

/** The headers of the HTML pages (the API reference, the portal). */
export const PAGE_HEADERS = securityHeaders(PAGE_SECURITY);
