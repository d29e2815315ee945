import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { type Database, openDatabase } from '../src/db/client';

// Every route a guide names as `METHOD /path` is one the server answers (parameter names and the
// path's case aside, as the router matches them): a guide that names a route it lacks sends an
// integrator to a 404. Built on an empty in-memory database, which building the routes never queries.

const root = join(import.meta.dirname, '..');
const guides = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** `GET /v1/x/{id}?a=` → the route pattern `/v1/x/:id`; null for an elided path (`PUT /admin/…`). */
function pattern(path: string): string | null {
  const bare = path.split(/[?[\s]/)[0] ?? '';
  if (bare.includes('…')) return null;
  return bare.replace(/\{(\w+)\}/g, ':$1');
}

let database: Database;
let app: FastifyInstance;
beforeAll(async () => {
  database = await openDatabase({ url: null, dataDir: null });
  app = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'silent', KOLLI_DATA_DIR: join(root, 'var') }),
    database,
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

test.each(guides)('%s names only routes the server has', (doc) => {
  const named = [
    ...readFileSync(join(root, doc), 'utf8').matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`]*)`/g),
  ];
  const missing = named.filter(([, method, path]) => {
    const url = pattern(path ?? '');
    return url !== null && app.findRoute({ method: method as 'GET', url }) === null;
  });
  expect(missing.map(([quoted]) => quoted)).toEqual([]);
});
