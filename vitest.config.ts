import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Pure unit tests (`*.unit.test.ts`), the end-to-end suite and the portal's browser tests (PGlite) run
// once; every other test talks to a database and runs on PGlite, and again on PostgreSQL when
// TEST_DATABASE_URL is set.
const unitOrE2e = [
  'src/**/*.unit.test.ts',
  'test/*.unit.test.ts',
  'test/e2e/**/*.test.ts',
  'test/browser/**/*.test.ts',
];
const databaseTests = ['src/**/*.test.ts', 'test/**/*.test.ts'];

/** The database tests on one kind of database (KOLLI_TEST_DB, read by test/helpers.ts). */
const databaseProject = (database: 'pglite' | 'postgres') => ({
  extends: true as const,
  test: {
    name: database,
    include: databaseTests,
    exclude: unitOrE2e,
    env: { KOLLI_TEST_DB: database },
    // Each file opens its own database and app, and none mocks a module, so a worker imports the
    // server once for all the files it runs instead of once per file.
    isolate: false,
  },
});

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The tests wait more than they compute (the database, child processes, retry timers): one worker
    // per core kept a 2-core machine half idle, and Vitest's default is one fewer than that. At most
    // four: each PostgreSQL test file holds a pool of up to 10 connections, of the server's 100.
    maxWorkers: Math.min(availableParallelism() + 1, 4),
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: unitOrE2e },
      },
      databaseProject('pglite'),
      ...(process.env.TEST_DATABASE_URL ? [databaseProject('postgres')] : []),
    ],
  },
});
