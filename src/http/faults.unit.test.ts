import { describe, expect, test } from 'vitest';
import { isDatabaseUnavailable, isStatementCancelled, serializeError } from './faults';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
/** How Drizzle wraps a failed query: the SQL and its parameters in the message, the driver's error as cause. */
const drizzle = (cause: unknown) =>
  new Error('Failed query: select * from api_keys where key_hash = $1\nparams: 6c9db93725e8deadbeef', {
    cause,
  });

describe('isDatabaseUnavailable', () => {
  test.each([
    ['connection refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['reset', withCode('read ECONNRESET', 'ECONNRESET')],
    ['pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['connection lost mid-query', new Error('Connection terminated unexpectedly')],
    [
      'server shutting down (57P01)',
      withCode('terminating connection due to administrator command', '57P01'),
    ],
    ['starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['connection failure (08006)', withCode('connection failure', '08006')],
    ['too many connections (53300)', withCode('sorry, too many clients already', '53300')],
    ['wrapped by Drizzle', drizzle(withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED'))],
    ['both address families refused', drizzle(new AggregateError([withCode('x', 'ECONNREFUSED')]))],
    [
      'a Unix socket whose server stopped',
      Object.assign(withCode('connect ENOENT /var/run/postgresql/.s.PGSQL.5432', 'ENOENT'), {
        syscall: 'connect',
      }),
    ],
    [
      'a database not accepting connections (55000)',
      withCode('database "kolli" is not currently accepting connections', '55000'),
    ],
  ])('%s is an outage', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  test.each([
    ['a unique violation', drizzle(withCode('duplicate key value violates unique constraint', '23505'))],
    ['a missing relation', drizzle(withCode('relation "x" does not exist', '42P01'))],
    ['a bug', new TypeError('cannot read properties of undefined')],
    [
      'a missing file',
      Object.assign(withCode("ENOENT: no such file, open 'x'", 'ENOENT'), { syscall: 'open' }),
    ],
    ['another 55000', withCode('cannot refresh materialized view concurrently', '55000')],
    [
      'a statement of too many parameters (08P01)',
      drizzle(withCode('bind message has 4464 parameter formats but 0 parameters', '08P01')),
    ],
    ['not an error', 'ECONNREFUSED'],
    [
      'a cancelled statement (57014), answered on its own',
      drizzle(withCode('canceling statement due to statement timeout', '57014')),
    ],
  ])('%s is not', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('isStatementCancelled', () => {
  test('a statement the server cancelled (57014), as Drizzle wraps it', () => {
    expect(
      isStatementCancelled(drizzle(withCode('canceling statement due to statement timeout', '57014'))),
    ).toBe(true);
    expect(isStatementCancelled(drizzle(withCode('duplicate key value', '23505')))).toBe(false);
    expect(isStatementCancelled(new Error('Query read timeout'))).toBe(false);
  });
});

describe('serializeError', () => {
  test('keeps the SQL and the SQLSTATE, drops the parameters and the stored values', () => {
    const pgError = Object.assign(
      new Error('duplicate key value violates unique constraint "api_keys_key_hash_unique"'),
      {
        code: '23505',
        detail: 'Key (key_hash)=(6c9db93725e8deadbeef) already exists.',
        where: 'SQL statement',
        constraint: 'api_keys_key_hash_unique',
        parameters: ['6c9db93725e8deadbeef'],
      },
    );
    const logged = serializeError(drizzle(pgError));
    const text = JSON.stringify(logged);
    expect(text).not.toContain('6c9db93725e8deadbeef');
    expect(logged.message).toBe('Failed query: select * from api_keys where key_hash = $1');
    expect(logged.cause).toMatchObject({ code: '23505', constraint: 'api_keys_key_hash_unique' });
  });
});
