import { or, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client';
import { gsin, sscc } from '../../lib/gs1';
import { parcelSerial, parcels as parcelsTable, SERIAL_BLOCK, shipmentSerial, shipments } from '../tables';

/*
 * The sequences step by SERIAL_BLOCK (tables.ts): `nextval` answering v reserves v … v + SERIAL_BLOCK − 1
 * for the process that drew it, so a booking takes its serials from memory and the database is asked
 * once per block. Processes and hosts draw disjoint blocks, so no number is handed out twice; the
 * numbers left in a block when a process stops are never used (GS1 serials are unique, not gapless).
 *
 * A client may book numbers of the carrier's own range too (CONTRACT §5: a client-chosen id under any
 * GS1 prefix, a customer's `ParcelId` kept as given). A block is drawn with the ids of it already
 * taken, and those serials are skipped; a number taken after its block was drawn fails the write on
 * its unique key: the blocks in hand are read again (`refresh`), and the booking is written again with
 * the next numbers (booking/service.ts).
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

/** Where the ids a sequence's serials make are kept, and how a serial is written in one. */
interface IdColumn {
  column: PgColumn;
  /** What precedes the zero-padded serial: the company prefix, for an SSCC after its extension digit. */
  head: string;
  /** The id's length: the head, the serial and the check digit. */
  length: number;
  /** The id of a serial (lib/gs1.ts). */
  idOf: (serial: bigint) => string;
}

const NONE: ReadonlySet<string> = new Set();

/** Serials from one sequence, a block at a time, without those whose ids are taken already. */
function blockSource(sequence: string, ids: IdColumn) {
  // The blocks in hand, lowest first: [next, end) each. Blocks drawn together by one process need
  // not be adjacent (other processes draw in between), and concurrent takes may draw out of order.
  const hand: { next: bigint; end: bigint }[] = [];
  // Serials in hand whose ids a client booked before the block was drawn.
  const taken = new Set<bigint>();
  const takeFromHand = (out: bigint[], count: number, avoid: ReadonlySet<string>) => {
    while (out.length < count && hand.length > 0) {
      const block = hand[0] as (typeof hand)[number];
      while (out.length < count && block.next < block.end) {
        const serial = block.next++;
        if (!taken.delete(serial) && !(avoid.size > 0 && avoid.has(ids.idOf(serial)))) out.push(serial);
      }
      if (block.next === block.end) hand.shift();
    }
  };
  const remember = (booked: readonly string[]) => {
    // Only digits (a customer's ParcelId is free text, and collations may skip punctuation).
    for (const id of booked) if (/^\d+$/.test(id)) taken.add(BigInt(id.slice(ids.head.length, -1)));
  };
  const width = ids.length - ids.head.length - 1;
  const idInSql = (serial: SQL) => sql`${ids.head} || lpad((${serial})::text, ${width}::int, '0')`;
  /** The booked ids of serials `from` … `to`: a range of the id's unique index (any check digit). */
  const bookedBetween = (from: SQL, to: SQL) =>
    sql`${ids.column} between ${idInSql(from)} || '0' and ${idInSql(to)} || '9'
      and length(${ids.column}) = ${ids.length}::int`;
  const last = sql.raw(String(SERIAL_BLOCK - 1));
  return {
    /**
     * `count` unused serials, none whose id is in `avoid`. When the hand runs short, the blocks still
     * needed (and those drawn ahead) come in one statement on `db` (the caller's transaction: the
     * embedded database has one connection).
     */
    async take(db: DbOrTx, count: number, avoid = NONE): Promise<bigint[]> {
      const out: bigint[] = [];
      takeFromHand(out, count, avoid);
      if (out.length === count) return out;
      const blocks = Math.ceil((count - out.length + DRAW_AHEAD * count) / SERIAL_BLOCK);
      // Each block with the ids of it taken: a range of the id's unique index.
      const drawn: SQL = sql`with drawn as materialized (
          select nextval(${sequence}) as v from generate_series(1, ${blocks}))
        select v::text as v, array(
          select ${ids.column} from ${ids.column.table} where ${bookedBetween(sql`v`, sql`v + ${last}`)}) as taken
        from drawn`;
      for (const row of rowsOf<{ v: string; taken?: string[] }>(await db.execute(drawn))) {
        const start = BigInt(row.v);
        hand.push({ next: start, end: start + BigInt(SERIAL_BLOCK) });
        remember(row.taken ?? []);
      }
      hand.sort((a, b) => (a.next < b.next ? -1 : a.next > b.next ? 1 : 0));
      // Pushed and taken in one synchronous step, so no other take can use the new blocks first.
      takeFromHand(out, count, avoid);
      return out;
    },

    /** Reads again which ids of the blocks in hand are booked: after a write failed on one. */
    async refresh(db: DbOrTx): Promise<void> {
      if (hand.length === 0) return;
      const serial = (n: bigint) => sql`${String(n)}::bigint`;
      const ranges = hand.map((b) => bookedBetween(serial(b.next), serial(b.end - 1n)));
      const rows = await db
        .select({ id: ids.column })
        .from(ids.column.table)
        .where(or(...ranges));
      remember(rows.map((r) => String(r.id)));
    },
  };
}

export type SerialSource = ReturnType<typeof createSerialSource>;

/**
 * Shipment (GSIN) and parcel (SSCC, extension digit 0) serials under the carrier's GS1 company prefix
 * (lib/gs1.ts writes the ids), of one database, for the life of the process.
 */
export function createSerialSource(companyPrefix: string) {
  const shipmentIds = blockSource(shipmentSerial.seqName ?? 'shipment_serial_seq', {
    column: shipments.id,
    head: companyPrefix,
    length: 17,
    idOf: (serial) => gsin(companyPrefix, serial),
  });
  const parcelIds = blockSource(parcelSerial.seqName ?? 'parcel_serial_seq', {
    column: parcelsTable.parcelId,
    head: `0${companyPrefix}`,
    length: 18,
    idOf: (serial) => sscc(companyPrefix, serial),
  });
  return {
    /**
     * A new shipment serial (when `shipment`) and `count` parcel serials, none making an id of `held`:
     * the ids the write holds already, not yet committed (a customer may number a shipment or its
     * parcels from the carrier's range, and a return shipment is written with its original).
     */
    async take(db: DbOrTx, shipment: boolean, count: number, held = NONE) {
      const [serial] = shipment ? await shipmentIds.take(db, 1, held) : [];
      return { shipment: serial ?? null, parcels: await parcelIds.take(db, count, held) };
    },
    /** After a write failed on a generated id a client booked meanwhile: the blocks in hand read again. */
    async refresh(db: DbOrTx): Promise<void> {
      await Promise.all([shipmentIds.refresh(db), parcelIds.refresh(db)]);
    },
  };
}
