import { and, asc, count, desc, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { webhookAttempts, webhookDeliveries, webhooks } from '../tables';

export type WebhookRow = typeof webhooks.$inferSelect;
export type NewWebhook = typeof webhooks.$inferInsert;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

export type WebhookStore = ReturnType<typeof createWebhookStore>;

/** What a registration listens to: a customer's parcel, shipment or whole account (eventValueType). */
export interface ListenTarget {
  customerNr: string;
  eventValueType: number;
  eventValue: string;
}

/** Drizzle queries of the webhook registrations and their delivery history. */
export function createWebhookStore(db: DbOrTx) {
  return {
    async insert(row: NewWebhook): Promise<WebhookRow> {
      const [created] = await db.insert(webhooks).values(row).returning();
      if (!created) throw new Error('webhook insert returned no row');
      return created;
    },

    async get(id: string): Promise<WebhookRow | null> {
      const [row] = await db.select().from(webhooks).where(eq(webhooks.id, id));
      return row ?? null;
    },

    /**
     * Holds the registrations of one eventValue against other writers until the transaction ends
     * (`db` must be one), so that counting them and writing one are one step.
     */
    async lockListeners(target: ListenTarget) {
      const name = `webhooks:${target.customerNr}:${target.eventValueType}:${target.eventValue}`;
      await db.execute(sql`select pg_advisory_xact_lock(hashtext(${name}))`);
    },

    /**
     * How many registrations deliver the events of one eventValue at `now` (enabled, not expired),
     * leaving out `except` (the one a replace is about to change).
     */
    async listening(target: ListenTarget, now: Date, except: string | null): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(webhooks)
        .where(
          and(
            eq(webhooks.customerNr, target.customerNr),
            eq(webhooks.eventValueType, target.eventValueType),
            eq(webhooks.eventValue, target.eventValue),
            eq(webhooks.enabled, true),
            gt(webhooks.expires, now),
            except === null ? undefined : ne(webhooks.id, except),
          ),
        );
      return row?.n ?? 0;
    },

    /** Registrations of the given customers (every customer's when `customerNrs` is null). */
    list(customerNrs: readonly string[] | null, limit: number, offset: number): Promise<WebhookRow[]> {
      const query = db.select().from(webhooks);
      const filtered =
        customerNrs === null ? query : query.where(inArray(webhooks.customerNr, [...customerNrs]));
      return filtered.orderBy(asc(webhooks.createdAt), asc(webhooks.id)).limit(limit).offset(offset);
    },

    /**
     * Replaces a registration; one that was expired or disabled at `now` (the service's clock) hears
     * only the events written from now on (the database's time, as the outbox rows').
     */
    async replace(id: string, values: Partial<NewWebhook>, now: Date): Promise<WebhookRow | null> {
      const [row] = await db
        .update(webhooks)
        .set({
          ...values,
          listeningSince: sql`case when ${and(webhooks.enabled, gt(webhooks.expires, now))}
            then ${webhooks.listeningSince} else now() end`,
        })
        .where(eq(webhooks.id, id))
        .returning();
      return row ?? null;
    },

    async remove(id: string): Promise<boolean> {
      const removed = await db.delete(webhooks).where(eq(webhooks.id, id)).returning({ id: webhooks.id });
      return removed.length > 0;
    },

    /** The newest deliveries of a registration with all their attempts, oldest attempt first. */
    async deliveries(
      webhookId: string,
      limit: number,
    ): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] }[]> {
      const rows = await db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.webhookId, webhookId))
        .orderBy(
          desc(webhookDeliveries.createdAt),
          desc(webhookDeliveries.eventId),
          desc(webhookDeliveries.id),
        )
        .limit(limit);
      if (rows.length === 0) return [];
      const attempts = await db
        .select()
        .from(webhookAttempts)
        .where(
          inArray(
            webhookAttempts.deliveryId,
            rows.map((r) => r.id),
          ),
        )
        .orderBy(asc(webhookAttempts.id));
      const byDelivery = new Map<string, AttemptRow[]>();
      for (const a of attempts) {
        const list = byDelivery.get(a.deliveryId) ?? [];
        list.push(a);
        byDelivery.set(a.deliveryId, list);
      }
      return rows.map((delivery) => ({ delivery, attempts: byDelivery.get(delivery.id) ?? [] }));
    },
  };
}
