import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client';
import { eventData, markFannedOut, matchableEvents, pendingEvents } from '../events/outbox';
import {
  holdRegistrations,
  insertDeliveries,
  matchingRegistrations,
  type NewDelivery,
  tryFanOutLock,
} from './store/deliveries';

/**
 * Turns up to `batchSize` outbox events into deliveries: one per event and matching, enabled,
 * unexpired registration of the event's customer (type 3 any event of the customer, type 2 events
 * of that shipment, type 1 events naming that parcel). The pair is unique, so an event is never
 * delivered twice to one registration. The events' data is read only for those that have a
 * registration to hear them. Returns how many events it handled (0 when another process holds the
 * fan-out lock or nothing is waiting).
 */
export async function fanOut(db: Db, now: Date, batchSize: number): Promise<number> {
  return db.transaction(async (tx) => {
    if (!(await tryFanOutLock(tx))) return 0;
    const events = await pendingEvents(tx, batchSize);
    if (events.length === 0) return 0;
    const ids = events.map((e) => e.id);
    const matched = await matchingRegistrations(tx, matchableEvents(ids), now);
    // A registration deleted since it matched gets no delivery, and cannot go until this commits.
    const held = await holdRegistrations(tx, [...new Set(matched.map((p) => p.webhook_id))]);
    const pairs = matched.filter((p) => held.has(p.webhook_id));
    const byEvent = new Map(events.map((e) => [e.id, e]));
    const data = await eventData(tx, [...new Set(pairs.map((p) => Number(p.event_id)))]);
    const rows: NewDelivery[] = [];
    const bodies = new Map<number, string>();
    const seen = new Set<string>();
    for (const p of pairs) {
      const e = byEvent.get(Number(p.event_id));
      if (!e || seen.has(`${p.event_id} ${p.webhook_id}`)) continue;
      seen.add(`${p.event_id} ${p.webhook_id}`);
      let body = bodies.get(e.id);
      if (body === undefined) {
        const delivered = data.get(e.id);
        // Never a signed body without its data: roll the batch back and try again.
        if (delivered === undefined) throw new Error(`outbox event ${e.id} has no data to deliver`);
        body = JSON.stringify({ type: e.type, timestamp: e.occurredAt.toISOString(), data: delivered });
        bodies.set(e.id, body);
      }
      rows.push({
        id: randomUUID(),
        webhookId: p.webhook_id,
        eventId: e.id,
        shipmentId: e.shipmentId,
        type: e.type,
        body,
        nextAttemptAt: now,
      });
    }
    await insertDeliveries(tx, rows);
    await markFannedOut(tx, ids, now);
    return events.length;
  });
}
