// Helpers for benchmarks that run the server as its own process (the compiled build, as `npm start`
// runs it), pinned to one core while the load generator runs on another.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { procStatFields } from '../test/processes';

// Read once, before pinSelf: afterwards availableParallelism() counts only this process's own core,
// and a server started then would be left unpinned, on the load generator's core.
const CORES = availableParallelism();

/** `taskset -c <core>` before a command when the machine has two cores or more (and taskset exists). */
export function pinned(core: number, command: string[]): string[] {
  if (CORES < 2) return command;
  try {
    readFileSync('/usr/bin/taskset');
  } catch {
    return command;
  }
  return ['taskset', '-c', String(core % CORES), ...command];
}

/** Pins this process (the load generator) to a core, so it never shares the server's. */
export async function pinSelf(core: number): Promise<void> {
  const [cmd, ...args] = pinned(core, [String(process.pid)]);
  if (cmd !== 'taskset') return;
  await new Promise<void>((resolve) => {
    spawn('taskset', ['-pc', args[1] as string, String(process.pid)], { stdio: 'ignore' }).on('exit', () =>
      resolve(),
    );
  });
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** Milliseconds from spawn until /healthz answered 200. */
  startedMs: number;
  rssMb(): number;
  stop(): Promise<void>;
}

/** Resident set size of a process in MB, from /proc (Linux). */
function rssMbOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

let nextPort = 18_500 + Math.floor(Math.random() * 1000);

/**
 * Starts `command` (e.g. `node dist/server.js`) with `env`, on core `core`, and waits until it answers
 * /healthz. Its log goes to /dev/null: it is still written (logging stays on), only not kept.
 */
export async function startServer(
  command: string[],
  env: Record<string, string | undefined>,
  core = 0,
): Promise<ServerProcess> {
  const port = nextPort++;
  const [cmd, ...args] = pinned(core, command);
  const started = performance.now();
  const child = spawn(cmd as string, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  for (;;) {
    if (exited) throw new Error(`${command.join(' ')} exited before answering /healthz`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const startedMs = performance.now() - started;
  return {
    child,
    port,
    startedMs,
    rssMb: () => rssMbOf(child.pid as number),
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Node's flags for a CPU profile written to `BENCH_PROFILE` when the process stops; none without it. */
export const profileFlags = (): string[] =>
  process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];

/**
 * Kolli as `npm start` runs it (the compiled build, with node `flags`), logging at info and with a
 * rate limit that never refuses, then this process pinned to the other core. BENCH_PROFILE=<dir>: the
 * server writes a V8 CPU profile there when it stops (node --cpu-prof).
 */
export async function startKolli(
  env: Record<string, string | undefined>,
  flags: string[] = [],
): Promise<ServerProcess> {
  const server = await startServer(['node', ...profileFlags(), ...flags, 'dist/server.js'], {
    LOG_LEVEL: 'info',
    KOLLI_RATE_LIMIT_PER_MINUTE: '100000000',
    ...env,
  });
  await pinSelf(1);
  return server;
}

let tickUs = 0;
/** Microseconds of CPU a clock tick of /proc stands for (asked once, of the first bench that counts). */
export function tickMicros(): number {
  tickUs ||= 1e6 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  return tickUs;
}

/** CPU ticks so far: the main thread's user and system time, the other threads' together. */
export function threadTicks(pid: number) {
  const ticks = { user: 0, system: 0, helpers: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const fields = procStatFields(`/proc/${pid}/task/${tid}/stat`);
    const [user, system] = [Number(fields[11]), Number(fields[12])];
    if (Number(tid) === pid) Object.assign(ticks, { user, system });
    else ticks.helpers += user + system;
  }
  return ticks;
}
