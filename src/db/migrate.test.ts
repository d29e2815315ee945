import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { expect, test } from 'vitest';
import { createTestDatabase, urlOfDatabase } from '../../test/helpers';
import { projectPath } from '../lib/project-root';
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

test('0020 makes the loads of versions an admin put or deleted before the marker existed the operator’s', async () => {
  const database = await createTestDatabase();
  const run = (text: string) => database.db.execute(sql.raw(text));
  const loads = async () =>
    Object.fromEntries(
      ((await run('select name, sha256 from reference_data_loads')) as unknown as { rows: Row[] }).rows.map(
        (r) => [r.name, r.sha256],
      ),
    );
  type Row = { name: string; sha256: string };
  try {
    // As an older release left them: the shipped version put by an admin (its load still the file's
    // hash), a version deleted by an admin (a load, no row), the shipped rate table as loaded.
    await run(`update pricing_tariffs set source = 'admin' where valid_from = '2026-01-01'`);
    await run(`update reference_data_loads set sha256 = 'file-hash' where name = 'tariffs/2026-01-01.json'`);
    await run(
      `insert into reference_data_loads (name, sha256) values ('tariffs/2025-06-01.json', 'old-file')`,
    );
    const rates = (await loads())['exchange-rates/2026-01-02.json'];
    expect(rates).toMatch(/^[0-9a-f]{64}$/);

    const migration = readFileSync(
      projectPath('src', 'db', 'migrations', '0020_operator_load_markers.sql'),
      'utf8',
    );
    for (const statement of migration.split('--> statement-breakpoint')) await run(statement);

    expect(await loads()).toMatchObject({
      'tariffs/2026-01-01.json': 'admin:file-hash',
      'tariffs/2025-06-01.json': 'admin:old-file',
      'exchange-rates/2026-01-02.json': rates,
    });
  } finally {
    await database.dispose();
  }
});

test('0023 moves a webhook expiring after 9999-12-31T23:59:59 Oslo time to that instant', async () => {
  const database = await createTestDatabase();
  const run = (text: string) => database.db.execute(sql.raw(text));
  try {
    // As an older release could store them: past the last Oslo second, within it, and an ordinary one.
    for (const [id, expires] of [
      ['00000000-0000-4000-8000-000000000001', '9999-12-31T23:59:59Z'],
      ['00000000-0000-4000-8000-000000000002', '9999-12-31T22:59:59.500Z'],
      ['00000000-0000-4000-8000-000000000003', '2027-01-01T00:00:00Z'],
    ]) {
      await run(
        `insert into webhooks (id, customer_nr, event_value, event_value_type, url, secret, expires)
         values ('${id}', '1000', '1000', 3, 'https://a.example/h', 's', '${expires}')`,
      );
    }
    const migration = readFileSync(
      projectPath('src', 'db', 'migrations', '0023_webhook_expires_latest.sql'),
      'utf8',
    );
    await run(migration);
    const rows = (await run(
      `select to_char(expires at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') as e from webhooks order by id`,
    )) as unknown as { rows: { e: string }[] };
    expect(rows.rows.map((r) => r.e)).toEqual([
      '9999-12-31T22:59:59.000',
      '9999-12-31T22:59:59.500',
      '2027-01-01T00:00:00.000',
    ]);
  } finally {
    await database.dispose();
  }
});
