import { type Account, canActFor } from '../auth/access';
import type { TimeWindow } from '../catalog/service';
import type { DbOrTx, Tx } from '../db/client';
import { type DomainEvent, emitEvents, emitEventsStatement } from '../events/outbox';
import { DomainError, notFound, type Violations } from '../lib/errors';
import { gsin, sscc } from '../lib/gs1';
import type { UpdateOptions, UpdateOutcome } from './deps';
import type { FrozenPrice } from './model';
import { checkMeasures, mergeParcels } from './parcels';
import { type PricedAhead, pricedFor } from './publish';
import { customerNrOf, returnAddresses, STATUS } from './rules';
import type { ShipmentUpdate } from './schemas';
import type { SerialSource } from './store/serials';
import {
  type BookingStore,
  createBookingStore,
  type ParcelValues,
  type ShipmentRow,
} from './store/shipments';
import type { Checked } from './validate';

/** The write side of booking, inside the caller's transaction: update, return shipments, cancel. */

/** The ETag of a shipment version; `If-Match` is compared with it (weak or strong form, or `*`). */
export const etagOf = (row: Pick<ShipmentRow, 'id' | 'version'>) => `"${row.id}-${row.version}"`;
const matches = (ifMatch: string, row: ShipmentRow) =>
  ifMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === etagOf(row));

/**
 * The rule of the status machine, stated once: Draft and ReadyForPublish shipments may change;
 * Published ones are booked and final; cancelled ones are gone.
 */
export function assertChangeable(row: ShipmentRow): void {
  if (row.cancelledAt) {
    throw new DomainError(
      'conflict',
      'shipment_cancelled',
      `Shipment ${row.id} is cancelled and cannot be changed.`,
    );
  }
  if (row.status === STATUS.Published) {
    throw new DomainError(
      'conflict',
      'shipment_published',
      row.pickedUpAt
        ? `Shipment ${row.id} is Published and picked up: it can no longer be changed or cancelled.`
        : `Shipment ${row.id} is Published: it is booked with the carrier and can no longer be changed. Cancel it (DELETE /v2/Shipment/${row.id}) and book a new one.`,
    );
  }
}

/** A published shipment that asks for it gets a linked return shipment, written beside it. */
const generatesReturn = (body: ShipmentUpdate, c: Checked): boolean =>
  c.status === STATUS.Published && body.ShouldGenerateReturnShipment === true;

/**
 * True when the write of `body` is one statement (`insertShipmentWithParcels`): a new shipment
 * without a return shipment. That statement is atomic on its own, so it needs no transaction around
 * it, nor the BEGIN and COMMIT round trips one costs; every other write does.
 */
export const writesOneStatement = (body: ShipmentUpdate, c: Checked): boolean =>
  body.ShipmentId === undefined && !generatesReturn(body, c);

export type ShipmentWriter = ReturnType<typeof createShipmentWriter>;

/** A generated return shipment, as its original's answer and events name it. */
interface ReturnShipment {
  id: string;
  parcelIds: string[];
  pickupDate: string | null;
  deliveryDate: string | null;
}

export function createShipmentWriter({
  clock,
  prefix,
  serials,
}: {
  clock: () => Date;
  prefix: string;
  serials: SerialSource;
}) {
  /** Creates the linked return shipment of a published HE/HJ shipment: sender and recipient swapped. */
  async function createReturnShipment(
    tx: DbOrTx,
    store: BookingStore,
    original: ShipmentRow,
    parcels: ParcelValues[],
    price: FrozenPrice | null,
    plan: { pickupDate: string | null; deliveryDate: string | null },
  ): Promise<ReturnShipment> {
    // Written with its original, whose ids a customer may have chosen from the carrier's range.
    const held = new Set([original.id, ...parcels.map((p) => p.parcelId)]);
    const drawn = await serials.take(tx, true, parcels.length, held);
    const id = gsin(prefix, drawn.shipment ?? 0n);
    const addresses = returnAddresses(original.addresses);
    const returnParcels = parcels.map((p, i) => ({
      ...p,
      parcelId: sscc(prefix, drawn.parcels[i] ?? 0n),
      seq: i + 1,
    }));
    await store.insertShipment({
      id,
      customerNr: original.customerNr,
      status: STATUS.Published,
      productCode: original.productCode,
      deliveryType: 1,
      services: [],
      unitCode: original.unitCode,
      senderReference: original.senderReference,
      goodsDescription: original.goodsDescription,
      isReturn: true,
      returnOf: original.id,
      pickupZip: addresses.Pickup.Zip,
      addresses,
      // Published with its original, planned from the working day after the original's delivery date,
      // in the product's windows.
      pickupDate: plan.pickupDate,
      pickupWindowFrom: original.pickupWindowFrom,
      pickupWindowTo: original.pickupWindowTo,
      deliveryDate: plan.deliveryDate,
      deliveryWindowFrom: original.deliveryWindowFrom,
      deliveryWindowTo: original.deliveryWindowTo,
      price,
      publishedAt: clock(),
    });
    await store.replaceParcels(id, returnParcels);
    return { id, parcelIds: returnParcels.map((p) => p.parcelId), ...plan };
  }

  /**
   * Applies a checked request to the (locked) stored shipment: the rules that need the stored
   * shipment, then the write and its outbox events, all in `tx`: a transaction, or the database
   * itself when `writesOneStatement` says the write is a single statement.
   */
  async function apply(
    tx: DbOrTx,
    body: ShipmentUpdate,
    c: Checked,
    v: Violations,
    { ifMatch, createOnly }: Pick<UpdateOptions, 'ifMatch' | 'createOnly'>,
    priced: PricedAhead | null,
  ): Promise<UpdateOutcome> {
    const store = createBookingStore(tx);
    const existing = body.ShipmentId ? await store.lockShipment(body.ShipmentId) : null;
    if (existing && createOnly) {
      throw new DomainError(
        'conflict',
        'shipment_exists',
        `Shipment ${existing.id} already exists; /Shipment/Book only creates. Change it with /Shipment/Update or /v2/Shipment/Update.`,
      );
    }
    if (existing) {
      if (existing.customerNr !== body.CustomerId) {
        // Not the caller's: said as a rule on ShipmentId, without telling whose it is.
        v.add('ShipmentId', `ShipmentId ${existing.id} is already used by another customer.`);
        v.throwIfAny();
      }
      assertChangeable(existing);
      if (ifMatch !== undefined && !matches(ifMatch, existing)) {
        throw new DomainError(
          'precondition_failed',
          'etag_mismatch',
          `Shipment ${existing.id} has changed since it was read (ETag ${etagOf(existing)}).`,
        );
      }
      if (existing.isReturn && body.RecipientShallPay)
        v.add('RecipientShallPay', 'RecipientShallPay is not allowed for returns.');
    } else if (ifMatch !== undefined && ifMatch.trim() !== '*') {
      // If-Match names a version of a shipment that does not exist.
      throw new DomainError(
        'precondition_failed',
        'etag_mismatch',
        'If-Match was given, but the shipment does not exist yet.',
      );
    }
    const shipmentId = existing?.id ?? body.ShipmentId ?? null;
    const current = existing ? await store.parcelsOf(existing.id) : [];
    const { merged, deleted, customerGivenNew } = mergeParcels(current, body.Parcels, v);
    const used = await store.parcelIdsUsedElsewhere(
      customerGivenNew.map((p) => p.parcelId),
      shipmentId ?? '',
    );
    for (const p of customerGivenNew) {
      if (used.has(p.parcelId) && p.requestIndex !== null) {
        v.add(
          `Parcels[${p.requestIndex}].ParcelId`,
          `ParcelId ${p.parcelId} is already used by another shipment.`,
        );
      }
    }
    const status = c.status ?? STATUS.Draft;
    const cancelsAll = existing !== null && merged.length === 0 && deleted > 0 && v.empty;
    if (!cancelsAll) {
      v.check('Parcels', merged.length >= 1, 'A shipment must hold at least 1 parcel.');
      v.check(
        'Parcels',
        merged.length <= 999,
        `A shipment may hold at most 999 parcels; this update would leave ${merged.length}.`,
      );
      checkMeasures(merged, c.product, status >= STATUS.ReadyForPublish, v);
    }
    v.throwIfAny();
    const product = c.product;
    if (!product || c.deliveryType === null) throw new Error('validated request without product'); // unreachable

    if (cancelsAll && existing) {
      // Deleting every parcel of a shipment that is not booked cancels it.
      await store.replaceParcels(existing.id, []);
      await store.updateShipment(existing.id, { cancelledAt: clock(), version: existing.version + 1 });
      await emitEvents(tx, [
        {
          type: 'shipment.cancelled',
          customerNr: existing.customerNr,
          shipmentId: existing.id,
          parcelIds: current.map((p) => p.parcelId),
          data: { ShipmentStatus: existing.status, Reason: 'All parcels deleted' },
        },
      ]);
      return {
        created: false,
        result: {
          ShipmentId: existing.id,
          ShipmentStatus: existing.status,
          ParcelIds: [],
          ReturnShipmentId: null,
        },
        etag: etagOf({ id: existing.id, version: existing.version + 1 }),
      };
    }

    // A generated SSCC never repeats a ParcelId the shipment holds (a customer's may be one Kolli draws).
    const held = new Set(merged.filter((p) => !p.generated).map((p) => p.parcelId));
    const generated = merged.filter((p) => p.generated).length;
    const drawn = await serials.take(tx, shipmentId === null, generated, held);
    const id = shipmentId ?? gsin(prefix, drawn.shipment ?? 0n);
    let next = 0;
    for (const p of merged) if (p.generated) p.parcelId = sscc(prefix, drawn.parcels[next++] ?? 0n);
    const parcels = merged.map(
      (p): ParcelValues => ({
        parcelId: p.parcelId,
        seq: p.seq,
        weightG: p.weightG,
        lengthCm: p.lengthCm,
        heightCm: p.heightCm,
        widthCm: p.widthCm,
        volumeCm3: p.volumeCm3,
      }),
    );

    const publishing = status === STATUS.Published;
    const window = (w: TimeWindow) => ({ from: w.From, to: w.To });
    const pickupWindow = window(product.PickupWindow);
    const deliveryWindow = window(product.DeliveryWindow);
    const prices = publishing ? pricedFor(priced, parcels) : null;
    const price = prices?.main ?? null;
    const values = {
      customerNr: body.CustomerId,
      status,
      productCode: product.ProductCode,
      deliveryType: c.deliveryType,
      services: c.services,
      unitCode: c.unitCode,
      commentToCarrier: body.CommentToCarrier?.trim() || null,
      goodsDescription: body.GoodsDescription?.trim() || null,
      senderReference: body.SenderReference?.trim() || null,
      desiredDeliveryDate: c.desiredDelivery,
      desiredPickupDate: c.desiredPickup,
      recipientShallPay: body.RecipientShallPay ?? false,
      recipientCustomerId: body.RecipientShallPay ? customerNrOf(body.RecipientCustomerId) : null,
      payerCustomerId: customerNrOf(body.PayerCustomerId),
      pickupPointId: body.PickupPointId ?? null,
      shouldGenerateReturnShipment: body.ShouldGenerateReturnShipment ?? false,
      pickupZip: c.addresses.Pickup.Zip,
      addresses: c.addresses,
      customs: c.customs,
      pickupDate: publishing ? c.pickupDate : c.desiredPickup,
      pickupWindowFrom: pickupWindow.from,
      pickupWindowTo: pickupWindow.to,
      deliveryDate: c.desiredDelivery ?? (publishing ? (c.plan?.EarliestDeliveryDate ?? null) : null),
      deliveryWindowFrom: deliveryWindow.from,
      deliveryWindowTo: deliveryWindow.to,
      price,
      publishedAt: publishing ? clock() : null,
    };
    const version = (existing?.version ?? 0) + 1;
    const withReturn = generatesReturn(body, c);
    let returnShipment: ReturnShipment | null = null;
    if (!existing && !withReturn) {
      // The common case, a new shipment: the shipment, its parcels and its events in one statement.
      await store.insertShipmentWithParcels(
        { id, ...values, version },
        parcels,
        emitEventsStatement(eventsOf(existing, id, parcels, values, returnShipment)),
      );
    } else {
      if (existing) await store.updateShipment(id, { ...values, version });
      else await store.insertShipment({ id, ...values, version });
      await store.replaceParcels(id, parcels);
      const row = { ...(existing ?? ({} as ShipmentRow)), id, ...values, version } as ShipmentRow;
      if (withReturn) {
        returnShipment = await createReturnShipment(tx, store, row, parcels, prices?.back ?? null, {
          pickupDate: c.returnPickupDate ?? row.pickupDate,
          deliveryDate: c.returnPlan?.EarliestDeliveryDate ?? null,
        });
        await store.updateShipment(id, { returnShipmentId: returnShipment.id });
      }
      await emitEvents(tx, eventsOf(existing, id, parcels, values, returnShipment));
    }
    return {
      created: !existing,
      result: {
        ShipmentId: id,
        ShipmentStatus: status,
        ParcelIds: parcels.map((p) => p.parcelId),
        ReturnShipmentId: returnShipment?.id ?? existing?.returnShipmentId ?? null,
      },
      etag: etagOf({ id, version }),
    };
  }

  /** The outbox events of a write: created or updated, published, and the return shipment's. */
  function eventsOf(
    existing: ShipmentRow | null,
    id: string,
    parcels: ParcelValues[],
    values: {
      customerNr: string;
      status: number;
      productCode: string;
      pickupDate: string | null;
      deliveryDate: string | null;
    },
    returnShipment: ReturnShipment | null,
  ): DomainEvent[] {
    const status = values.status;
    const publishing = status === STATUS.Published;
    const parcelIds = parcels.map((p) => p.parcelId);
    const data = {
      ShipmentStatus: status,
      ProductCode: values.productCode,
      NumberOfParcels: parcels.length,
    };
    const events: DomainEvent[] = [
      {
        type: existing ? 'shipment.updated' : 'shipment.created',
        customerNr: values.customerNr,
        shipmentId: id,
        parcelIds,
        data,
      },
    ];
    if (publishing) {
      events.push({
        type: 'shipment.published',
        customerNr: values.customerNr,
        shipmentId: id,
        parcelIds,
        data: {
          ...data,
          PickupDate: values.pickupDate,
          DeliveryDate: values.deliveryDate,
          ReturnShipmentId: returnShipment?.id ?? null,
        },
      });
    }
    if (returnShipment) {
      events.push({
        type: 'shipment.published',
        customerNr: values.customerNr,
        shipmentId: returnShipment.id,
        parcelIds: returnShipment.parcelIds,
        data: {
          ShipmentStatus: STATUS.Published,
          ProductCode: values.productCode,
          NumberOfParcels: parcels.length,
          PickupDate: returnShipment.pickupDate,
          DeliveryDate: returnShipment.deliveryDate,
          IsReturn: true,
          ReturnOf: id,
        },
      });
    }
    return events;
  }

  return {
    apply,
    /** `DELETE /v2/Shipment/{id}`: cancels a shipment until its first pickup scan. */
    async cancel(tx: Tx, account: Account, id: string): Promise<void> {
      const store = createBookingStore(tx);
      // The shipment and the return shipment generated with it are locked together, in id order
      // as scans lock them, then read as locked; a shipment alone is locked and read at once.
      const returnSeen = (await store.shipment(id))?.returnShipmentId ?? null;
      let row: ShipmentRow | null;
      if (returnSeen) {
        await store.lockShipments([id, returnSeen]);
        row = await store.shipment(id);
      } else row = await store.lockShipment(id);
      if (!row || row.cancelledAt || !canActFor(account, row.customerNr)) throw notFound(`Shipment ${id}`);
      if (row.pickedUpAt) {
        throw new DomainError(
          'conflict',
          'shipment_picked_up',
          `Shipment ${id} was picked up and can no longer be cancelled.`,
        );
      }
      // A return generated between the first look and the lock is not locked, and locking it now
      // would break the order: the client tries again.
      if (row.returnShipmentId !== returnSeen) {
        throw new DomainError(
          'conflict',
          'shipment_changed',
          `Shipment ${id} was published with a return shipment while this request cancelled it; try again.`,
        );
      }
      // The return shipment generated with it goes too, unless the carrier already has it.
      const linked = returnSeen ? await store.shipment(returnSeen) : null;
      const cancelling = [row, ...(linked && !linked.cancelledAt && !linked.pickedUpAt ? [linked] : [])];
      const events: DomainEvent[] = [];
      for (const r of cancelling) {
        await store.updateShipment(r.id, { cancelledAt: clock(), version: r.version + 1 });
        events.push({
          type: 'shipment.cancelled',
          customerNr: r.customerNr,
          shipmentId: r.id,
          parcelIds: (await store.parcelsOf(r.id)).map((p) => p.parcelId),
          data: {
            ShipmentStatus: r.status,
            ...(r.isReturn ? { IsReturn: true, ReturnOf: r.returnOf } : {}),
          },
        });
      }
      await emitEvents(tx, events);
    },
  };
}
