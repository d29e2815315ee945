import { asc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { customers } from './tables';

export type CustomerRow = typeof customers.$inferSelect;
export type NewCustomer = typeof customers.$inferInsert;

/** Drizzle queries of the customer register. */
export function createCustomerStore(db: DbOrTx) {
  return {
    /** The inserted row, or null when the customer number is taken. */
    async insert(row: NewCustomer): Promise<CustomerRow | null> {
      const [inserted] = await db
        .insert(customers)
        .values(row)
        .onConflictDoNothing({ target: customers.customerNr })
        .returning();
      return inserted ?? null;
    },

    /** The updated row, or null when there is no such customer. */
    async update(
      customerNr: string,
      set: Pick<NewCustomer, 'name' | 'orgNr' | 'address' | 'agreement'>,
    ): Promise<CustomerRow | null> {
      const [row] = await db
        .update(customers)
        .set(set)
        .where(eq(customers.customerNr, customerNr))
        .returning();
      return row ?? null;
    },

    /** Every special unit code an agreement lists, with its customer, by code and customer. */
    async specialUnitCodes(using: DbOrTx = db): Promise<{ customerNr: string; code: string }[]> {
      const result = await using.execute(sql`
        select c.customer_nr as "customerNr", code
        from ${customers} c, jsonb_array_elements_text(coalesce(c.agreement -> 'SpecialUnitCodes', '[]'::jsonb)) code
        order by code, c.customer_nr`);
      return (result as unknown as { rows: { customerNr: string; code: string }[] }).rows;
    },

    /** At most `limit` customers by number (as text), after `after` when given. */
    list: (q: { after?: string | undefined; limit: number }): Promise<CustomerRow[]> =>
      db
        .select()
        .from(customers)
        .where(q.after === undefined ? undefined : gt(customers.customerNr, q.after))
        .orderBy(asc(customers.customerNr))
        .limit(q.limit),

    /** `using`: the transaction to read in, when the caller holds one. */
    async get(customerNr: string, using: DbOrTx = db): Promise<CustomerRow | null> {
      const [row] = await using.select().from(customers).where(eq(customers.customerNr, customerNr));
      return row ?? null;
    },

    /** Which of the given customer numbers exist (`customerNrs` not empty). */
    async existing(customerNrs: string[]): Promise<string[]> {
      const rows = await db
        .select({ nr: customers.customerNr })
        .from(customers)
        .where(inArray(customers.customerNr, customerNrs));
      return rows.map((r) => r.nr);
    },

    async byPriceServiceId(id: string): Promise<CustomerRow | null> {
      const [row] = await db.select().from(customers).where(eq(customers.priceServiceId, id));
      return row ?? null;
    },
  };
}
