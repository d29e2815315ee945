// Helpers for the webhook tests: a local receiver and minimal booking rows. Not used by the server.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQL } from 'drizzle-orm';
import { waitFor } from '../../test/helpers';
import { EMPTY_ADDRESS } from '../booking/addresses';
import { parcels, shipments } from '../booking/tables';
import type { Db } from '../db/client';
import { webhooks } from './tables';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request arrived. */
  at: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (the connection stays open until the sender gives up or the receiver closes). */
  hang?: boolean;
  delayMs?: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/**
 * An HTTP server on 127.0.0.1 that records every request and answers as `respond` says
 * (default 200). `respond` gets the request and its 0-based number.
 */
export async function startReceiver(
  respond: (request: Received, index: number) => Reply = () => ({}),
): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const index = received.length;
      received.push(r);
      for (const w of waiters) if (received.length >= w.count) w.resolve();
      const reply = respond(r, index);
      if (reply.hang) return;
      const answer = () => {
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? 'ok');
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    waitFor(count, timeoutMs = 10_000) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${count} requests, got ${received.length}`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A shipment row with its parcels, as booking would store it (only what webhooks read). */
export async function insertShipment(
  db: Db,
  options: { customerNr: string; shipmentId: string; parcelIds: string[]; cancelled?: boolean },
): Promise<void> {
  const empty = EMPTY_ADDRESS;
  await db.insert(shipments).values({
    id: options.shipmentId,
    customerNr: options.customerNr,
    status: 0,
    productCode: '43',
    deliveryType: 1,
    services: [],
    unitCode: 'KL',
    addresses: { Pickup: empty, Recipient: empty, Return: null, PickupPoint: null },
    cancelledAt: options.cancelled ? new Date() : null,
  });
  if (options.parcelIds.length > 0) {
    await db
      .insert(parcels)
      .values(
        options.parcelIds.map((parcelId, i) => ({ shipmentId: options.shipmentId, parcelId, seq: i + 1 })),
      );
  }
}

/** A registration row written directly (the delivery tests bypass the API's checks on purpose). */
export async function insertWebhook(
  db: Db,
  values: Partial<typeof webhooks.$inferInsert> & { url: string; customerNr: string },
): Promise<typeof webhooks.$inferSelect> {
  const [row] = await db
    .insert(webhooks)
    .values({
      id: randomUUID(),
      eventValue: values.customerNr,
      eventValueType: 3,
      secret: 'a-shared-secret',
      expires: new Date(Date.now() + 24 * 60 * 60 * 1000),
      ...values,
    })
    .returning();
  if (!row) throw new Error('no row');
  return row;
}

/** Polls `check` until it returns true; fails after `timeoutMs`. */
export const until = (check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<true> =>
  waitFor(async () => (await check()) || undefined, timeoutMs);

/** The rows of a raw query. */
export async function rowsOf<T>(db: Db, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}
