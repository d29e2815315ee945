import { randomUUID } from 'node:crypto';
import { type Account, assertCanActFor, canActFor, isAdmin } from '../auth/access';
import type { Db } from '../db/client';
import { DomainError, notFound, ValidationFailed, Violations } from '../lib/errors';
import { formatOslo } from '../lib/oslo-time';
import { createDeliveryEngine, type DeliveryEngine } from './delivery';
import { checkCustomHeaders } from './headers';
import type { DeliveriesResponse, TestResult, WebhookRecord, WebhookRequest } from './schemas';
import { secretProblem } from './signing';
import { countByStatus } from './store/deliveries';
import {
  createWebhookStore,
  type ListenTarget,
  type WebhookRow,
  type WebhookStore,
} from './store/registrations';
import { addMonths, formatWithOffset, LATEST_EXPIRES_TEXT, parseDateTime } from './times';
import { type Lookup, urlProblem } from './url-guard';

const LATEST_EXPIRES = parseDateTime(LATEST_EXPIRES_TEXT) as Date;

export interface WebhookDeps {
  db: Db;
  /** KOLLI_WEBHOOK_ALLOW_PRIVATE: loopback and private targets (and http on loopback) are allowed. */
  allowPrivate: boolean;
  /**
   * KOLLI_WEBHOOKS_PER_EVENT_VALUE: how many registrations may deliver the events of one eventValue.
   * Each event goes to every one of them, so a client that registers again at every start of its own
   * (a common slip) would otherwise multiply the deliveries, and the database's work, without end.
   */
  listenersPerEventValue: number;
  /** Tells which customer numbers exist (an admin may register for any existing customer). */
  customers: { existing(customerNrs: string[]): Promise<Set<string>> };
  /** Booking's read model: whose (not cancelled) shipment or parcel an `eventValue` names. */
  shipments: {
    shipmentOwner(shipmentId: string): Promise<string | null>;
    parcelOwner(parcelId: string): Promise<string | null>;
  };
  clock?: () => Date;
  /** The delivery engine shared with the worker; built from `db`, `allowPrivate` and `clock` when absent. */
  engine?: DeliveryEngine;
  /** DNS resolution for the registration-time address check (tests replace it). */
  lookup?: Lookup;
}

/** eventValueType: what `eventValue` names. */
export const EVENT_VALUE_TYPE = { parcel: 1, shipment: 2, customer: 3 } as const;

const DEFAULT_LIFETIME_MONTHS = 2;

/** Delivery history times in the §2 form (Oslo local, no offset); only `expires` carries an offset. */
const stamp = (d: Date | null) => (d ? formatOslo(d) : null);

/** The spec's webhook record. */
export const recordOf = (w: WebhookRow): WebhookRecord => ({
  uuid: w.id,
  eventValue: w.eventValue,
  eventValueType: w.eventValueType,
  url: w.url,
  customHeaders: w.customHeaders,
  secret: w.secret,
  expires: formatWithOffset(w.expires),
});

export type WebhookService = ReturnType<typeof createWebhookService>;

/** Registrations (`/v1/Webhooks`), their delivery history and test messages. */
export function createWebhookService(deps: WebhookDeps) {
  const { db, allowPrivate, customers, listenersPerEventValue } = deps;
  const clock = deps.clock ?? (() => new Date());
  const engine = deps.engine ?? createDeliveryEngine({ db, allowPrivate, clock });
  const store = createWebhookStore(db);

  /** A registration the caller may see; unknown and foreign ones are both 404. */
  async function visible(account: Account, id: string): Promise<WebhookRow> {
    const row = await store.get(id.toLowerCase());
    if (!row || !canActFor(account, row.customerNr)) throw notFound(`Webhook ${id}`);
    return row;
  }

  /**
   * The customer behind `eventValue`. A customer number the key may not act for is a 403 (the
   * request names it); a shipment or parcel of another customer is reported exactly like an unknown
   * one, so a key learns nothing about other customers' numbers.
   */
  async function ownerOf(account: Account, body: WebhookRequest, v: Violations): Promise<string | null> {
    const { eventValue: value, eventValueType: type } = body;
    if (type === EVENT_VALUE_TYPE.customer) {
      if (!/^[0-9]{1,10}$/.test(value)) {
        v.add('eventValue', 'With eventValueType 3 the eventValue field must be a customer number (digits).');
        return null;
      }
      assertCanActFor(account, value);
      if (!(await customers.existing([value])).has(value)) {
        v.add('eventValue', `Customer number ${value} does not exist.`);
        return null;
      }
      return value;
    }
    if (type === EVENT_VALUE_TYPE.shipment || type === EVENT_VALUE_TYPE.parcel) {
      const shipment = type === EVENT_VALUE_TYPE.shipment;
      const owner = shipment
        ? await deps.shipments.shipmentOwner(value)
        : await deps.shipments.parcelOwner(value);
      if (owner === null || !canActFor(account, owner)) {
        v.add(
          'eventValue',
          `No ${shipment ? 'shipment' : 'parcel'} ${value} was found among the shipments this key may act for.`,
        );
        return null;
      }
      return owner;
    }
    v.add(
      'eventValueType',
      'The eventValueType field must be 1 (parcel number), 2 (shipment id) or 3 (customer number).',
    );
    return null;
  }

  const fullMessage = (listening: number) =>
    `At most ${listenersPerEventValue} webhooks may listen to the same eventValue, and ${listening} do; delete or replace one of them.`;

  /**
   * Writes a registration unless its eventValue is full: counted again and written under a lock of
   * that eventValue, so registrations made at the same moment cannot all take the last place.
   */
  function withinLimit<T>(
    values: ListenTarget,
    replacing: string | null,
    write: (locked: WebhookStore) => Promise<T>,
  ): Promise<T> {
    return db.transaction(async (tx) => {
      const locked = createWebhookStore(tx);
      await locked.lockListeners(values);
      const listening = await locked.listening(values, clock(), replacing);
      if (listening >= listenersPerEventValue)
        throw new ValidationFailed({ eventValue: [fullMessage(listening)] });
      return write(locked);
    });
  }

  /** Every rule of a create or replace request, all reported together; the values to store. */
  async function checked(account: Account, body: WebhookRequest, replacing: string | null = null) {
    const now = clock();
    const v = new Violations();
    const customerNr = await ownerOf(account, body, v);
    if (customerNr !== null) {
      const target = { customerNr, eventValueType: body.eventValueType, eventValue: body.eventValue };
      const listening = await store.listening(target, now, replacing);
      v.check('eventValue', listening < listenersPerEventValue, fullMessage(listening));
    }

    // `check` passes what the schema accepted: a refused url or secret is absent, and judged there.
    const urlIssue =
      body.url === undefined ? null : await urlProblem(body.url, { allowPrivate, lookup: deps.lookup });
    if (urlIssue) v.add('url', urlIssue);

    const secretIssue = body.secret === undefined ? null : secretProblem(body.secret);
    if (secretIssue) v.add('secret', secretIssue);

    const headers = checkCustomHeaders(body.customHeaders);
    if (!headers.ok) for (const p of headers.problems) v.add('customHeaders', p);

    let expires = addMonths(now, DEFAULT_LIFETIME_MONTHS);
    if (body.expires !== undefined && body.expires !== null) {
      const parsed = parseDateTime(body.expires);
      if (!parsed) {
        v.add(
          'expires',
          'The expires field must be a date and time (ISO 8601), such as 2027-01-23T10:15:00+01:00.',
        );
      } else if (parsed.getTime() <= now.getTime()) {
        v.add('expires', 'The expires field must be in the future.');
      } else if (Math.floor(parsed.getTime() / 1000) * 1000 > LATEST_EXPIRES.getTime()) {
        // Compared in whole seconds, as the record writes it: a fraction of the last second, with
        // or without an offset, is that second.
        v.add('expires', `The expires field must be no later than ${LATEST_EXPIRES_TEXT} (Oslo time).`);
      } else {
        expires = parsed;
      }
    }
    v.throwIfAny();
    if (customerNr === null || !headers.ok) throw new Error('validated request without owner'); // unreachable
    return {
      customerNr,
      eventValue: body.eventValue,
      eventValueType: body.eventValueType,
      url: body.url,
      secret: body.secret,
      customHeaders: headers.text,
      expires,
    };
  }

  return {
    /** Shared with the worker loop, so test messages and deliveries use one client and one guard. */
    engine,

    /**
     * The rules of a create or replace request alone, writing nothing (throws `ValidationFailed`);
     * `replacing` is the id a replace names (which keeps its own place among an eventValue's).
     */
    async check(account: Account, body: WebhookRequest, replacing: string | null = null): Promise<void> {
      await checked(account, body, replacing?.toLowerCase() ?? null);
    },

    /** `POST /v1/Webhooks`. */
    async create(account: Account, body: WebhookRequest): Promise<WebhookRecord> {
      const values = await checked(account, body);
      // listeningSince is the database's time, as the outbox rows' is: a registration hears the
      // events written after it.
      const row = await withinLimit(values, null, (locked) =>
        locked.insert({ id: randomUUID(), ...values, createdByKey: account.keyId }),
      );
      return recordOf(row);
    },

    /** `GET /v1/Webhooks/{webhookId}`. */
    async get(account: Account, id: string): Promise<WebhookRecord> {
      return recordOf(await visible(account, id));
    },

    /** `GET /v1/Webhooks`: the registrations of every customer the key may act for, oldest first. */
    async list(account: Account, page: { limit?: number; offset?: number } = {}): Promise<WebhookRecord[]> {
      const rows = await store.list(
        isAdmin(account) ? null : [...account.customerNrs],
        page.limit ?? 1000,
        page.offset ?? 0,
      );
      return rows.map(recordOf);
    },

    /**
     * `PUT /v1/Webhooks/{webhookId}`: replaces the registration (an absent `expires` renews it for two
     * months) and enables it again if it was disabled.
     */
    async replace(account: Account, id: string, body: WebhookRequest): Promise<WebhookRecord> {
      const existing = await visible(account, id);
      const values = await checked(account, body, existing.id);
      const now = clock();
      const row = await withinLimit(values, existing.id, (locked) =>
        locked.replace(
          existing.id,
          {
            ...values,
            enabled: true,
            disabledAt: null,
            disabledReason: null,
            failingSince: null,
            updatedAt: now,
          },
          now,
        ),
      );
      if (!row) throw notFound(`Webhook ${id}`);
      return recordOf(row);
    },

    /** `DELETE /v1/Webhooks/{webhookId}`: the registration and its delivery history. */
    async remove(account: Account, id: string): Promise<void> {
      const existing = await visible(account, id);
      if (!(await store.remove(existing.id))) throw notFound(`Webhook ${id}`);
    },

    /** Retained deliveries by status (`pending`, `succeeded`, `failed`), for /metrics. */
    deliveryCounts: () => countByStatus(deps.db),

    /** `GET /v1/Webhooks/{webhookId}/deliveries`: the newest deliveries with every attempt. */
    async deliveries(account: Account, id: string, limit = 50): Promise<DeliveriesResponse> {
      const w = await visible(account, id);
      const rows = await store.deliveries(w.id, limit);
      return {
        webhookId: w.id,
        enabled: w.enabled,
        disabledAt: stamp(w.disabledAt),
        disabledReason: w.disabledReason,
        failingSince: stamp(w.failingSince),
        deliveries: rows.map(({ delivery: d, attempts }) => ({
          id: d.id,
          type: d.type,
          status: d.status as 'pending' | 'succeeded' | 'failed',
          createdAt: formatOslo(d.createdAt),
          nextAttemptAt: d.status === 'pending' ? stamp(d.nextAttemptAt) : null,
          completedAt: stamp(d.completedAt),
          lastStatusCode: d.lastStatusCode,
          lastError: d.lastError,
          payload: d.body,
          attempts: attempts.map((a) => ({
            attempt: a.attempt,
            startedAt: formatOslo(a.startedAt),
            durationMs: a.durationMs,
            statusCode: a.statusCode,
            error: a.error,
            succeeded: a.succeeded,
            responseBody: a.responseBody,
            nextAttemptAt: stamp(a.nextAttemptAt),
          })),
        })),
      };
    },

    /**
     * `POST /v1/Webhooks/{webhookId}/test`: sends a signed `webhook.test` message now and answers
     * with the outcome. A failed test message is retried like any delivery.
     */
    async test(account: Account, id: string): Promise<TestResult> {
      const w = await visible(account, id);
      if (!w.enabled) {
        throw new DomainError(
          'conflict',
          'webhook_disabled',
          `The webhook was disabled (${w.disabledReason ?? 'its deliveries failed'}); make it live again with PUT /v1/Webhooks/${w.id}.`,
        );
      }
      if (w.expires.getTime() <= clock().getTime()) {
        throw new DomainError(
          'conflict',
          'webhook_expired',
          `The webhook expired at ${formatWithOffset(w.expires)}; renew it with PUT /v1/Webhooks/${w.id}.`,
        );
      }
      const claimed = await engine.claimTest(w);
      if (claimed === 'gone') throw notFound(`Webhook ${id}`);
      if (claimed === 'busy') {
        throw new DomainError(
          'conflict',
          'webhook_busy',
          'An attempt to this webhook, or to as many of its customer’s webhooks as may be in flight at once, is in flight; try again when it has finished.',
        );
      }
      const outcome = await engine.attempt(claimed);
      return {
        deliveryId: outcome.deliveryId,
        type: 'webhook.test',
        succeeded: outcome.succeeded,
        statusCode: outcome.statusCode,
        error: outcome.error,
        durationMs: outcome.durationMs,
        nextAttemptAt: stamp(outcome.nextAttemptAt),
      };
    },

    /** Closes the delivery engine's connections. */
    close(): void {
      engine.close();
    },
  };
}
