import { type AddressInfo, createServer, type Socket } from 'node:net';
import { expect, test } from 'vitest';
import { migratePostgres } from './migrate';

// Migrating is every process's first contact with PostgreSQL (server, `npm run worker`,
// `npm run migrate`): a database that does not answer must stop the start with a line that says
// which database, not hold it forever or print a bare socket error.

test('a database that accepts the connection and never answers fails the start within the connect timeout, naming it without its password', async () => {
  const held: Socket[] = [];
  const silent = createServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  try {
    const started = Date.now();
    const error = await migratePostgres(
      `postgres://kolli:s3cret@127.0.0.1:${port}/kolli?sslmode=disable`,
      500,
    ).then(
      () => null,
      (err: Error) => err,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error?.message).toBe(
      `Cannot connect to the database at DATABASE_URL postgres://kolli@127.0.0.1:${port}/kolli: timeout expired`,
    );
  } finally {
    for (const socket of held) socket.destroy();
    silent.close();
  }
});

test('a refused connection names the database it was refused by', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  await expect(migratePostgres(`postgres://kolli@127.0.0.1:${port}/kolli`)).rejects.toThrow(
    `Cannot connect to the database at DATABASE_URL postgres://kolli@127.0.0.1:${port}/kolli: connect ECONNREFUSED 127.0.0.1:${port}`,
  );
});
