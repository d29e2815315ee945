import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { projectPath } from '../src/lib/project-root';

/**
 * Runs an ES module's text in a fresh Node process under tsx, from the project's root (where tsx
 * resolves), and returns what it printed: for checks that need a process nothing else has touched.
 * Synchronous, so a child that hangs is ended at `timeoutMs`, not left to block the test worker.
 */
export function runFreshModule(script: string, nodeFlags: string[] = [], timeoutMs = 60_000): string {
  return execFileSync(
    process.execPath,
    [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script],
    {
      cwd: projectPath(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
    },
  );
}

/** A spawned npm script: its process, everything it printed so far, and how it ended. */
export interface Running {
  child: ChildProcess;
  output: () => string;
  /** The exit code, or the signal when npm itself was ended by the SIGTERM it passed on. */
  exited: Promise<number | string | null>;
}

/** Runs `npm run <script>` in its own process group, collecting its output. */
export function runNpm(script: string, env: NodeJS.ProcessEnv): Running {
  let output = '';
  const child = spawn('npm', ['run', script], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (d: Buffer) => {
    output += d;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  return { child, output: () => output, exited };
}

/** SIGTERM to the process group (npm and node), as a process manager does; see `groupEnded`. */
export async function stopGroup(running: Running): Promise<number | string | null> {
  if (running.child.pid) process.kill(-running.child.pid, 'SIGTERM');
  return groupEnded(running);
}

/**
 * npm's exit code once every process of its group has ended. npm dies of a signal at once while
 * node is still closing its database; a caller that then reuses or removes the data directory
 * would race with it.
 */
export async function groupEnded(running: Running): Promise<number | string | null> {
  const code = await running.exited;
  const group = running.child.pid;
  const deadline = Date.now() + 30_000;
  while (group && groupAlive(group)) {
    if (Date.now() > deadline) {
      process.kill(-group, 'SIGKILL');
      throw new Error(`process group ${group} still running 30 s after npm ended`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return code;
}

const HAS_PROC = existsSync('/proc/self/stat');

/**
 * The fields of a `/proc/.../stat` line after the command name, which may itself hold spaces and
 * parentheses: [0] state, [1] ppid, [2] pgrp, [11] utime, [12] stime (proc(5), less two).
 */
export function procStatFields(path: string): string[] {
  const stat = readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
}

/** Whether a process of the group still runs; zombies left for an init that does not reap don't count. */
function groupAlive(group: number): boolean {
  if (!HAS_PROC) {
    try {
      process.kill(-group, 0);
      return true;
    } catch {
      return false;
    }
  }
  return readdirSync('/proc').some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const [state, , pgrp] = procStatFields(`/proc/${entry}/stat`);
      return Number(pgrp) === group && state !== 'Z';
    } catch {
      return false; // ended while we looked
    }
  });
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
