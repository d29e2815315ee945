import { type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { parcelSerial, SERIAL_BLOCK, shipmentSerial } from '../tables';

/*
 * The sequences step by SERIAL_BLOCK (tables.ts): `nextval` answering v reserves v … v + SERIAL_BLOCK − 1
 * for the process that drew it, so a booking takes its serials from memory and the database is asked
 * once per block. Processes and hosts draw disjoint blocks, so no number is handed out twice; the
 * numbers left in a block when a process stops are never used (GS1 serials are unique, not gapless).
 */

/**
 * When the hand runs short, a source draws what is missing and enough for DRAW_AHEAD more takes of
 * the same size: a run of 999-parcel bookings then draws once in DRAW_AHEAD + 1 of them instead of
 * at every booking (a round trip each), while a 1-parcel booking still draws one block at a time.
 * What is drawn ahead is left unused when the process stops, as the rest of a block always was: after
 * 999-parcel bookings, under 4 000 serials for each booking that was drawing.
 */
export const DRAW_AHEAD = 3;

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

/** Serials from one sequence, a block at a time. */
function blockSource(sequence: string) {
  // The blocks in hand, lowest first: [next, end) each. Blocks drawn together by one process need
  // not be adjacent (other processes draw in between), and concurrent takes may draw out of order.
  const hand: { next: bigint; end: bigint }[] = [];
  const takeFromHand = (out: bigint[], count: number) => {
    while (out.length < count && hand.length > 0) {
      const block = hand[0] as (typeof hand)[number];
      while (out.length < count && block.next < block.end) out.push(block.next++);
      if (block.next === block.end) hand.shift();
    }
  };
  return {
    /**
     * `count` unused serials. When the hand runs short, the blocks still needed (and those drawn
     * ahead) come in one statement on `db` (the caller's transaction: the embedded database has one
     * connection).
     */
    async take(db: DbOrTx, count: number): Promise<bigint[]> {
      const out: bigint[] = [];
      takeFromHand(out, count);
      if (out.length === count) return out;
      const blocks = Math.ceil((count - out.length + DRAW_AHEAD * count) / SERIAL_BLOCK);
      const drawn: SQL = sql`select nextval(${sequence})::text as v from generate_series(1, ${blocks})`;
      for (const { v } of rowsOf<{ v: string }>(await db.execute(drawn))) {
        const start = BigInt(v);
        hand.push({ next: start, end: start + BigInt(SERIAL_BLOCK) });
      }
      hand.sort((a, b) => (a.next < b.next ? -1 : a.next > b.next ? 1 : 0));
      // Pushed and taken in one synchronous step, so no other take can use the new blocks first.
      takeFromHand(out, count);
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
