import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Whether process `pid` runs (EPERM: it runs under another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded database belongs to one process: PGlite keeps its pages in the process's memory, so
 * a second process on the same files answers 404 for the first's bookings, hands out the same
 * shipment numbers, and whichever closes last writes its files over the other's (acknowledged
 * bookings lost). Takes `<dataDir>/kolli.lock` for this process (its pid) and answers the function
 * that gives it back; throws when a running process holds it. A lock left by a process that is gone
 * (killed, or this pid's earlier life in a restarted container) is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, 'kolli.lock');
  const mine = String(process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, mine);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(file, 'utf8') === mine) unlinkSync(file);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(file, 'utf8').trim());
    } catch {
      continue; // given back meanwhile: try again
    }
    if (Number.isInteger(holder) && holder > 0 && String(holder) !== mine && running(holder)) {
      throw new Error(
        `The data directory ${dataDir} is in use by process ${holder}: the embedded database belongs to one process. Stop that process first, give this one another KOLLI_DATA_DIR, or use PostgreSQL (DATABASE_URL) for several.`,
      );
    }
    // Stale: moved aside (one process wins the rename), then taken afresh.
    try {
      renameSync(file, `${file}.stale-${mine}`);
      unlinkSync(`${file}.stale-${mine}`);
    } catch {
      // another process moved it first
    }
  }
  throw new Error(`The data directory ${dataDir} could not be locked (${file}).`);
}
