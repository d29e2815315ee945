import { type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { parcelSerial, SERIAL_BLOCK, shipmentSerial } from '../tables';

/*
 * The sequences step by SERIAL_BLOCK (tables.ts): `nextval` answering v reserves v … v + SERIAL_BLOCK − 1
 * for the process that drew it, so a booking takes its serials from memory and the database is asked
 * once per block. Processes and hosts draw disjoint blocks, so no number is handed out twice; the
 * numbers left in a block when a process stops are never used (GS1 serials are unique, not gapless).
 */

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

/** Serials from one sequence, a block at a time. */
function blockSource(sequence: string) {
  let next = 0n;
  let end = 0n;
  return {
    /**
     * `count` unused serials. When the block in hand runs short, the blocks still needed are drawn
     * in one statement on `db` (the caller's transaction: the embedded database has one connection).
     */
    async take(db: DbOrTx, count: number): Promise<bigint[]> {
      const out: bigint[] = [];
      while (out.length < count && next < end) out.push(next++);
      if (out.length === count) return out;
      const blocks = Math.ceil((count - out.length) / SERIAL_BLOCK);
      const drawn: SQL = sql`select nextval(${sequence})::text as v from generate_series(1, ${blocks})`;
      for (const { v } of rowsOf<{ v: string }>(await db.execute(drawn))) {
        const start = BigInt(v);
        const stop = start + BigInt(SERIAL_BLOCK);
        let n = start;
        while (n < stop && out.length < count) out.push(n++);
        // What is left of the last block is the block in hand (a concurrent draw may replace it:
        // its rest is then skipped, never reused).
        if (n < stop) {
          next = n;
          end = stop;
        }
      }
      return out;
    },
  };
}

export type SerialSource = ReturnType<typeof createSerialSource>;

/** Shipment (GSIN) and parcel (SSCC) serials of one database, for the life of the process. */
export function createSerialSource() {
  const shipments = blockSource(shipmentSerial.seqName ?? 'shipment_serial_seq');
  const parcels = blockSource(parcelSerial.seqName ?? 'parcel_serial_seq');
  return {
    /** A new shipment serial (when `shipment`) and `count` parcel serials. */
    async take(db: DbOrTx, shipment: boolean, count: number) {
      const [serial] = shipment ? await shipments.take(db, 1) : [];
      return { shipment: serial ?? null, parcels: await parcels.take(db, count) };
    },
  };
}
