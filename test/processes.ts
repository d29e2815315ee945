import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

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

/** SIGTERM to the process group (npm and node), as a process manager does. */
export async function stopGroup(running: Running): Promise<number | string | null> {
  if (running.child.pid) process.kill(-running.child.pid, 'SIGTERM');
  return running.exited;
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
