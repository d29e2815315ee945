import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { projectPath } from '../lib/project-root';

/** The portal's files: plain HTML, CSS and ES modules, served as they are (no build step). */
// From the project root: the compiled server in dist/ is one file, not src/portal/.
export const PORTAL_ROOT = projectPath('portal');

/**
 * Only the portal's own files run; the API answers it fetches are same-origin, and label PDFs are
 * shown from blob: URLs the page creates.
 */
const PORTAL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "frame-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The web portal at `/portal/`, on the public API; its routes are public pages (no key needed to load them). */
export async function portalPlugin(app: FastifyInstance): Promise<void> {
  // Registered encapsulated: these headers go to the portal's routes only.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', PORTAL_CSP).header('cache-control', 'no-cache');
  });
  app.get('/portal', { config: { public: true, page: true }, schema: { hide: true } }, (request, reply) => {
    // `/portal` and `/portal/` reach the same route (ignoreTrailingSlash); the page uses absolute URLs.
    if (!request.url.endsWith('/')) return reply.redirect('/portal/');
    return reply.sendFile('index.html', PORTAL_ROOT);
  });
  await app.register(fastifyStatic, {
    root: PORTAL_ROOT,
    prefix: '/portal/',
    index: false,
    wildcard: true,
    cacheControl: false,
  });
}
