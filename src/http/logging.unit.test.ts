import { spawn } from 'node:child_process';
import { expect, test } from 'vitest';
import { linesPerTurn, MAX_LOG_BACKLOG_BYTES, redactSecrets } from './logging';

test('secret names are redacted at the top and two levels down in plain objects, without changing the object', () => {
  const logged = {
    secret: 'S1',
    webhook: { url: 'https://h.example', secret: 'S2' },
    req: { headers: { authorization: 'Bearer T', accept: 'application/json' } },
    token: { access_token: 'T2', expires_in: 3600 },
    customer: { Key: 'K1', Name: 'Kunde AS' },
    form: { client_secret: 'C1', password: 'P1' },
  };
  const copy = structuredClone(logged);
  const out = redactSecrets(logged);
  expect(out).toEqual({
    secret: '[redacted]',
    webhook: { url: 'https://h.example', secret: '[redacted]' },
    req: { headers: { authorization: '[redacted]', accept: 'application/json' } },
    token: { access_token: '[redacted]', expires_in: 3600 },
    customer: { Key: '[redacted]', Name: 'Kunde AS' },
    form: { client_secret: '[redacted]', password: '[redacted]' },
  });
  expect(logged).toEqual(copy);
});

test('an object without secrets is passed through as is; objects that are not plain are left to their serializers', () => {
  const err = Object.assign(new Error('x'), { secret: 'kept for serializeError to drop' });
  const clean = { job: 'invoice', tick: 3, err };
  expect(redactSecrets(clean)).toBe(clean);
});

/** Stands in for `process`: collects the exit listeners, so a test can run them. */
const fakeProcess = () => {
  const exits: (() => void)[] = [];
  return { exits, process: { prependListener: (_event: string, fn: () => void) => exits.push(fn) } as never };
};

test('the lines of one event-loop turn reach the destination as one write, after the turn', async () => {
  const writes: string[] = [];
  const stream = linesPerTurn({ write: (chunk) => writes.push(chunk) }, fakeProcess().process);
  stream.write('a\n');
  stream.write('b\n');
  expect(writes).toEqual([]);
  await new Promise((resolve) => setImmediate(resolve));
  expect(writes).toEqual(['a\nb\n']);
  stream.write('c\n');
  await new Promise((resolve) => setImmediate(resolve));
  expect(writes).toEqual(['a\nb\n', 'c\n']);
});

test('a line written just before the process exits is handed on at exit, and flush(cb) writes through', () => {
  const writes: string[] = [];
  const { exits, process } = fakeProcess();
  let flushed = 0;
  const destination = {
    write: (chunk: string) => writes.push(chunk),
    flush: (cb: () => void) => {
      flushed++;
      cb();
    },
  };
  const stream = linesPerTurn(destination, process);
  stream.write('last\n');
  for (const exit of exits) exit();
  expect(writes).toEqual(['last\n']);
  stream.write('more\n');
  let called = false;
  stream.flush(() => {
    called = true;
  });
  expect(writes).toEqual(['last\n', 'more\n']);
  expect([flushed, called]).toEqual([1, true]);
});

test('a logged line is on stdout by the next turn: a SIGKILL then loses nothing', async () => {
  // A child logs through the server's logger options and kills itself two turns later; pino's
  // buffered destination would still hold the line.
  const script = `
    import pino from 'pino';
    import { loggingOptions } from '${new URL('./logging.ts', import.meta.url).href}';
    const { stream, ...options } = loggingOptions('info').logger;
    pino(options, stream).info('kept');
    setImmediate(() => setImmediate(() => process.kill(process.pid, 'SIGKILL')));
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const signal = await new Promise((resolve) => child.on('close', (_code, signal) => resolve(signal)));
  expect(signal).toBe('SIGKILL');
  expect(out).toMatch(/"level":30,.*"msg":"kept"/);
});

test('lines are dropped, not held, while the reader is behind by more than the cap; the next write says how many', async () => {
  const writes: string[] = [];
  const destination = {
    writableLength: MAX_LOG_BACKLOG_BYTES + 1,
    write: (chunk: string) => writes.push(chunk),
  };
  const stream = linesPerTurn(destination, fakeProcess().process);
  stream.write('a\n');
  stream.write('b\n');
  await new Promise((resolve) => setImmediate(resolve));
  expect(writes).toEqual([]);
  destination.writableLength = 0;
  stream.write('c\n');
  await new Promise((resolve) => setImmediate(resolve));
  expect(writes).toHaveLength(1);
  const [note, line] = (writes[0] as string).split('\n');
  expect(JSON.parse(note as string)).toMatchObject({ level: 40, dropped: 2 });
  expect(line).toBe('c');
});

test('a stdout nobody reads does not stop the server: its event loop keeps turning while lines wait', async () => {
  // A child logs ~6 MB through the server's logger options (a pipe holds 64 KB) while this process
  // never reads its stdout; it reports on stderr when its 300 turns are done.
  const script = `
    import pino from 'pino';
    import { loggingOptions } from '${new URL('./logging.ts', import.meta.url).href}';
    const { stream, ...options } = loggingOptions('info').logger;
    const log = pino(options, stream);
    const filler = 'x'.repeat(1000);
    let turns = 0;
    const turn = () => {
      for (let i = 0; i < 20; i++) log.info({ filler }, 'filler');
      if (++turns < 300) setImmediate(turn);
      else process.stderr.write('turns ' + turns + '\\n', () => process.exit(0));
    };
    turn();
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const finished = await Promise.race([
    new Promise((resolve) => child.on('exit', () => resolve(true))),
    new Promise((resolve) => setTimeout(() => resolve(false), 15_000)),
  ]);
  child.kill('SIGKILL');
  expect(finished, err).toBe(true);
  expect(err).toContain('turns 300');
});
