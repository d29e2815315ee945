import pg from 'pg';
import { expect, test } from 'vitest';
import { createTestDatabase, urlOfDatabase } from '../../test/helpers';
import { migratePostgres } from './migrate';

test.skipIf(process.env.KOLLI_TEST_DB !== 'postgres')(
  'a current database starts without the migration lock: one left held behind a pooler stops no start',
  async () => {
    // Behind pgbouncer in transaction mode the lock and its unlock ran on different server
    // connections; the lock stayed held by an idle one, and every later start waited on it forever.
    const database = await createTestDatabase();
    const url = await urlOfDatabase(database.db);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('select pg_advisory_lock(7090001)');
      const started = migratePostgres(url).then(() => 'started');
      const waited = new Promise((resolve) => setTimeout(() => resolve('waited on the lock'), 5000));
      expect(await Promise.race([started, waited])).toBe('started');
    } finally {
      await holder.end();
      await database.dispose();
    }
  },
);
