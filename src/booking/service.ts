import type { Account } from '../auth/access';
import { assertCanActFor, canActFor } from '../auth/access';
import type { CatalogService, Product, TimeWindow } from '../catalog/service';
import type { Config } from '../config';
import type { CustomerService } from '../customers/service';
import type { Db, Tx } from '../db/client';
import { type DomainEvent, emitEvents } from '../events/outbox';
import type { LabelShipment } from '../labels/model';
import { DomainError, notFound, Violations } from '../lib/errors';
import { gsin, sscc } from '../lib/gs1';
import type { PostalCodeService } from '../reference-data/postal-codes';
import type { BookingPricing } from './pricing';
import {
  addressesOf,
  checkCompleteAddresses,
  checkCustoms,
  checkDesiredDate,
  checkProductRules,
  checkShipmentId,
  checkUnitCode,
  checkZips,
  customsOf,
  dateOf,
  parseDeliveryType,
  parseStatus,
  payerOf,
  type ShipmentStatus,
  STATUS,
} from './rules';
import type { ShipmentRecordT, ShipmentUpdate, ShipmentUpdateResult } from './schemas';
import { type BookingStore, createBookingStore, type ParcelValues, type ShipmentRow } from './store';
import type { AddressBlock, FrozenPrice, ShipmentAddresses } from './tables';

/** What booking needs from the schedule: the first pickup date, and the delivery plan of a route. */
export interface BookingSchedule {
  /** Today, or after the 16:00 Oslo cut-off the next working day. */
  earliestPickupDate(): string;
  deliveryPlan(input: { fromZip: string; toZip: string; productCode: string; pickupDate: string }): Promise<{
    EarliestDeliveryDate: string;
    DeliveryDates: readonly string[];
  } | null>;
}

export interface BookingDeps {
  db: Db;
  config: Config;
  catalog: CatalogService;
  postalCodes: PostalCodeService;
  customers: CustomerService;
  schedule: BookingSchedule;
  pricing: BookingPricing;
  pickupPoints: { exists(id: number): Promise<boolean> };
  clock?: () => Date;
}

export interface UpdateOptions {
  /** `If-Match`: the update applies only to this version (412 otherwise). */
  ifMatch?: string;
  /** Runs inside the booking's transaction, after the change (the idempotency record is written here). */
  within?: (tx: Tx, outcome: UpdateOutcome) => Promise<void>;
}

export interface UpdateOutcome {
  created: boolean;
  result: ShipmentUpdateResult;
  etag: string;
}

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
      `Shipment ${row.id} is Published: it is booked with the carrier and can no longer be changed. Cancel it (DELETE /v2/Shipment/${row.id}) and book a new one.`,
    );
  }
}

const kgToGrams = (kg: number) => Math.round(kg * 1000);
const dm3ToCm3 = (dm3: number) => Math.round(dm3 * 1000);

interface MergedParcel extends ParcelValues {
  /** Index in the request's Parcels, when the request named it. */
  requestIndex: number | null;
  /** Needs a generated SSCC. */
  generated: boolean;
}

/** Applies the request's parcel upserts and deletes to the current parcels. */
function mergeParcels(current: ParcelValues[], requested: ShipmentUpdate['Parcels'], v: Violations) {
  const byId = new Map(
    current.map((p) => [p.parcelId, { ...p, requestIndex: null as number | null, generated: false }]),
  );
  const added: MergedParcel[] = [];
  const seen = new Set<string>();
  let deleted = 0;
  requested.forEach((p, i) => {
    const at = `Parcels[${i}]`;
    if (p.ParcelId !== undefined) {
      if (
        !v.check(`${at}.ParcelId`, !seen.has(p.ParcelId), `ParcelId ${p.ParcelId} is given more than once.`)
      )
        return;
      seen.add(p.ParcelId);
    }
    if (p.Delete) {
      if (p.ParcelId === undefined) {
        v.add(`${at}.ParcelId`, 'The ParcelId field is required to delete a parcel.');
      } else if (
        v.check(
          `${at}.ParcelId`,
          byId.has(p.ParcelId),
          `There is no parcel ${p.ParcelId} in this shipment to delete.`,
        )
      ) {
        byId.delete(p.ParcelId);
        deleted++;
      }
      return;
    }
    const measures = {
      ...(p.Weight !== undefined ? { weightG: kgToGrams(p.Weight) } : {}),
      ...(p.Length !== undefined ? { lengthCm: p.Length } : {}),
      ...(p.Height !== undefined ? { heightCm: p.Height } : {}),
      ...(p.Width !== undefined ? { widthCm: p.Width } : {}),
      ...(p.Volume !== undefined ? { volumeCm3: dm3ToCm3(p.Volume) } : {}),
    };
    const known = p.ParcelId !== undefined ? byId.get(p.ParcelId) : undefined;
    if (known) {
      // A named parcel keeps the measures the request leaves out.
      Object.assign(known, measures, { requestIndex: i });
      return;
    }
    added.push({
      parcelId: p.ParcelId ?? '',
      seq: 0,
      weightG: null,
      lengthCm: null,
      heightCm: null,
      widthCm: null,
      volumeCm3: null,
      ...measures,
      requestIndex: i,
      generated: p.ParcelId === undefined,
    });
  });
  const merged = [...byId.values(), ...added];
  merged.forEach((p, i) => {
    p.seq = i + 1;
  });
  return { merged, deleted, customerGivenNew: added.filter((p) => !p.generated).map((p) => p.parcelId) };
}

function checkMeasures(parcels: MergedParcel[], product: Product | null, publishing: boolean, v: Violations) {
  const at = (p: MergedParcel, field: string) =>
    p.requestIndex === null ? 'Parcels' : `Parcels[${p.requestIndex}].${field}`;
  let totalG = 0;
  for (const p of parcels) {
    totalG += p.weightG ?? 0;
    if (publishing && !(p.weightG && p.weightG > 0)) {
      v.add(
        at(p, 'Weight'),
        `Parcel ${p.parcelId || `#${p.seq}`} needs a Weight above 0 when the shipment is ReadyForPublish or Published.`,
      );
    }
    if (!product) continue;
    if (p.weightG !== null && p.weightG > product.MaxParcelWeightKg * 1000) {
      v.add(
        at(p, 'Weight'),
        `A parcel of product ${product.ProductCode} may weigh at most ${product.MaxParcelWeightKg} kg.`,
      );
    }
    const limits = [
      ['Length', p.lengthCm, product.MaxLengthCm],
      ['Width', p.widthCm, product.MaxWidthCm],
      ['Height', p.heightCm, product.MaxHeightCm],
    ] as const;
    for (const [name, value, max] of limits) {
      if (value !== null && value > max) {
        v.add(
          at(p, name),
          `The ${name} of a parcel of product ${product.ProductCode} may be at most ${max} cm.`,
        );
      }
    }
  }
  if (product && totalG > product.MaxShipmentWeightKg * 1000) {
    v.add(
      'Parcels',
      `A shipment of product ${product.ProductCode} may weigh at most ${product.MaxShipmentWeightKg} kg in all.`,
    );
  }
}

const dateTime = (date: string | null, time: string | null) =>
  date && time ? `${date}T${time}:00` : date ? `${date}T00:00:00` : null;

/** The parcel facts a price depends on, as one comparable string. */
const measuresOf = (p: Pick<ParcelValues, 'weightG' | 'lengthCm' | 'heightCm' | 'widthCm' | 'volumeCm3'>) =>
  `${p.weightG},${p.lengthCm},${p.heightCm},${p.widthCm},${p.volumeCm3}`;

/** Prices made before a publishing transaction, for the parcels they were made for. */
interface PricedAhead {
  measures: string;
  main: FrozenPrice;
  /** The return shipment's price, when one is generated. */
  back: FrozenPrice | null;
}

/** The parcels priced before the transaction are not the ones it would write. */
class StaleQuote extends Error {}

/** Who pays the freight: a third party, the paying recipient, or else the sender's customer. */
/** The payer (`payerOf`) of a requested shipment. */
const payerOfRequest = (body: ShipmentUpdate) =>
  payerOf({
    customerNr: body.CustomerId,
    recipientShallPay: body.RecipientShallPay ?? false,
    recipientCustomerId: body.RecipientCustomerId ?? null,
    payerCustomerId: body.PayerCustomerId ?? null,
  }).customerNr;

/** The return shipment's addresses: from the recipient back to the return address (or the sender). */
const returnAddresses = (a: ShipmentAddresses): ShipmentAddresses => ({
  Pickup: a.Recipient,
  Recipient: a.Return ?? a.Pickup,
  Return: null,
  PickupPoint: null,
});

export type BookingService = ReturnType<typeof createBookingService>;

export function createBookingService(deps: BookingDeps) {
  const { db, config } = deps;
  const clock = deps.clock ?? (() => new Date());
  const prefix = config.gs1Prefix;

  /** Everything that needs no stored shipment: the request on its own, the catalogue, the registers. */
  async function validateRequest(account: Account, body: ShipmentUpdate, v: Violations) {
    const status = parseStatus(body.ShipmentStatus, v);
    const deliveryType = parseDeliveryType(body.DeliveryType, v);
    checkShipmentId(body.ShipmentId, v);
    const rules = await deps.catalog.rules();
    const product = rules.product(body.ProductCode);
    v.check('ProductCode', product !== null, `Product code ${body.ProductCode} does not exist.`);
    const services = [...new Set(body.Services ?? [])];
    if (product) checkProductRules(body, product, rules, services, v);
    rules.checkRequiredFields(
      services,
      {
        RecipientEmail: body.RecipientEmail,
        RecipientPhone: body.RecipientPhone,
        DeliveryDate: body.DeliveryDate,
        PickupDate: body.PickupDate,
        PickupPointId: body.PickupPointId,
        RecipientCompanyName: body.RecipientCompanyName,
      },
      v,
    );

    const addresses = addressesOf(body);
    const customs = customsOf(body);
    const zips = Object.values(addresses).flatMap((a) => (a?.Zip && a.Country === 'NO' ? [a.Zip] : []));
    checkZips(addresses, await deps.postalCodes.existing(zips), v);
    checkCustoms(addresses, customs, v);

    const customer = await deps.customers.get(body.CustomerId);
    v.check('CustomerId', customer !== null, `Customer number ${body.CustomerId} does not exist.`);
    const unitCode = (body.UnitCode ?? 'KL').toUpperCase();
    checkUnitCode(unitCode, product, customer?.agreement.SpecialUnitCodes ?? [], v);

    if (body.RecipientShallPay) {
      if (
        v.check(
          'RecipientCustomerId',
          body.RecipientCustomerId !== undefined,
          'The RecipientCustomerId field is required when RecipientShallPay is true.',
        )
      ) {
        // The recipient pays: like any payer a request names, the key must be able to act for it.
        assertCanActFor(account, String(body.RecipientCustomerId));
        const payer = await deps.customers.get(String(body.RecipientCustomerId));
        v.check(
          'RecipientCustomerId',
          payer !== null,
          `Customer number ${body.RecipientCustomerId} does not exist.`,
        );
      }
      v.check(
        'RecipientShallPay',
        !body.ShouldGenerateReturnShipment,
        'RecipientShallPay is not allowed for returns.',
      );
    }
    if (body.PayerCustomerId !== undefined) {
      // The third party pays: the key must act for it, as for a payer in the price calculation.
      assertCanActFor(account, body.PayerCustomerId);
      v.check(
        'PayerCustomerId',
        !body.RecipientShallPay,
        'PayerCustomerId cannot be combined with RecipientShallPay: the shipment has one payer.',
      );
      v.check(
        'PayerCustomerId',
        (await deps.customers.get(String(body.PayerCustomerId))) !== null,
        `Customer number ${body.PayerCustomerId} does not exist.`,
      );
    }
    if (body.PickupPointId !== undefined) {
      for (const f of ['PickupPointAddress', 'PickupPointZip', 'PickupPointPlace'] as const) {
        v.check(
          f,
          !!addresses.PickupPoint?.[f.slice('PickupPoint'.length) as 'Address' | 'Zip' | 'Place'],
          `The ${f} field is required when PickupPointId is given.`,
        );
      }
      v.check(
        'PickupPointId',
        await deps.pickupPoints.exists(body.PickupPointId),
        `Pickup point ${body.PickupPointId} does not exist.`,
      );
    }

    // Dates: a working day, at most 3 days after the earliest date of the schedule.
    const desiredPickup = dateOf(body.PickupDate, 'PickupDate', v);
    const desiredDelivery = dateOf(body.DeliveryDate, 'DeliveryDate', v);
    const earliestPickup = deps.schedule.earliestPickupDate();
    if (desiredPickup) checkDesiredDate('PickupDate', desiredPickup, earliestPickup, v);
    const pickupDate = desiredPickup && v.empty ? desiredPickup : earliestPickup;
    const domestic = addresses.Pickup.Country === 'NO' && addresses.Recipient.Country === 'NO';
    const plan =
      product &&
      domestic &&
      addresses.Pickup.Zip &&
      addresses.Recipient.Zip &&
      !v.has('PickupZip') &&
      !v.has('RecipientZip')
        ? await deps.schedule.deliveryPlan({
            fromZip: addresses.Pickup.Zip,
            toZip: addresses.Recipient.Zip,
            productCode: product.ProductCode,
            pickupDate,
          })
        : null;
    if (desiredDelivery)
      checkDesiredDate('DeliveryDate', desiredDelivery, plan?.EarliestDeliveryDate ?? pickupDate, v);

    if (status !== null && status >= STATUS.ReadyForPublish) checkCompleteAddresses(addresses, v);
    return {
      status,
      deliveryType,
      product,
      services,
      addresses,
      customs,
      unitCode,
      pickupDate,
      plan,
      desiredDelivery,
      desiredPickup,
    };
  }

  type Checked = Awaited<ReturnType<typeof validateRequest>>;

  async function priceOf(
    customerNr: string,
    payer: string,
    c: Pick<Checked, 'unitCode' | 'services'> & { productCode: string; deliveryType: 0 | 1 },
    addresses: ShipmentAddresses,
    parcels: ParcelValues[],
    pickupDate: string,
  ) {
    return deps.pricing.priceShipment({
      customerNr,
      payerCustomerNr: payer,
      productCode: c.productCode,
      fromZip: addresses.Pickup.Zip,
      toZip: addresses.Recipient.Zip,
      fromCountry: addresses.Pickup.Country ?? 'NO',
      toCountry: addresses.Recipient.Country ?? 'NO',
      deliveryType: c.deliveryType,
      services: c.services,
      unitCode: c.unitCode,
      pickupDate,
      parcels,
    });
  }

  /**
   * Prices a request that publishes, BEFORE its transaction: pricing reads tariffs and registers
   * through its own connection and caches, which must not wait on (or hold) the booking's locks —
   * on the embedded database, which has one connection, it would wait forever. The transaction then
   * checks that it writes exactly the parcels that were priced, and the update is retried otherwise.
   */
  async function priceAhead(body: ShipmentUpdate, c: Checked): Promise<PricedAhead | null> {
    if (c.status !== STATUS.Published || !c.product || c.deliveryType === null) return null;
    const store = createBookingStore(db);
    const existing = body.ShipmentId ? await store.shipment(body.ShipmentId) : null;
    const current = existing ? await store.parcelsOf(existing.id) : [];
    const { merged } = mergeParcels(current, body.Parcels, new Violations());
    if (merged.length === 0 || merged.length > 999) return null;
    const productCode = c.product.ProductCode;
    const main = await priceOf(
      body.CustomerId,
      payerOfRequest(body),
      { productCode, deliveryType: c.deliveryType, services: c.services, unitCode: c.unitCode },
      c.addresses,
      merged,
      c.pickupDate,
    );
    const back = body.ShouldGenerateReturnShipment
      ? await priceOf(
          body.CustomerId,
          body.CustomerId,
          { productCode, deliveryType: 1, services: [], unitCode: c.unitCode },
          returnAddresses(c.addresses),
          merged,
          c.pickupDate,
        )
      : null;
    return { measures: merged.map(measuresOf).join('|'), main, back };
  }

  /** The prices of `priceAhead`, provided they were made for exactly these parcels. */
  function pricedFor(priced: PricedAhead | null, parcels: ParcelValues[]): PricedAhead {
    if (!priced || priced.measures !== parcels.map(measuresOf).join('|')) throw new StaleQuote();
    return priced;
  }

  /** Creates the linked return shipment of a published HE/HJ shipment: sender and recipient swapped. */
  async function createReturnShipment(
    store: BookingStore,
    original: ShipmentRow,
    parcels: ParcelValues[],
    price: FrozenPrice | null,
  ) {
    const id = gsin(prefix, await store.nextShipmentSerial());
    const serials = await store.nextParcelSerials(parcels.length);
    const addresses = returnAddresses(original.addresses);
    const returnParcels = parcels.map((p, i) => ({
      ...p,
      parcelId: sscc(prefix, serials[i] ?? 0n),
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
      price,
      publishedAt: clock(),
    });
    await store.replaceParcels(id, returnParcels);
    return { id, parcelIds: returnParcels.map((p) => p.parcelId) };
  }

  async function updateInTransaction(
    body: ShipmentUpdate,
    c: Checked,
    v: Violations,
    options: UpdateOptions,
    priced: PricedAhead | null,
  ): Promise<UpdateOutcome> {
    return db.transaction(async (tx) => {
      const outcome = await applyUpdate(tx, body, c, v, options.ifMatch, priced);
      await options.within?.(tx, outcome);
      return outcome;
    });
  }

  async function applyUpdate(
    tx: Tx,
    body: ShipmentUpdate,
    c: Checked,
    v: Violations,
    ifMatch: string | undefined,
    priced: PricedAhead | null,
  ): Promise<UpdateOutcome> {
    {
      const store = createBookingStore(tx);
      const existing = body.ShipmentId ? await store.lockShipment(body.ShipmentId) : null;
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
      const used = await store.parcelIdsUsedElsewhere(customerGivenNew, shipmentId ?? '');
      for (const p of merged) {
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

      const id = shipmentId ?? gsin(prefix, await store.nextShipmentSerial());
      const serials = await store.nextParcelSerials(merged.filter((p) => p.generated).length);
      let next = 0;
      for (const p of merged) if (p.generated) p.parcelId = sscc(prefix, serials[next++] ?? 0n);
      const parcels: ParcelValues[] = merged.map(({ requestIndex: _r, generated: _g, ...p }) => p);

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
        recipientCustomerId: body.RecipientShallPay ? (body.RecipientCustomerId ?? null) : null,
        payerCustomerId: body.PayerCustomerId ?? null,
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
      if (existing) await store.updateShipment(id, { ...values, version });
      else await store.insertShipment({ id, ...values, version });
      await store.replaceParcels(id, parcels);

      let returnShipment: { id: string; parcelIds: string[] } | null = null;
      const row = { ...(existing ?? ({} as ShipmentRow)), id, ...values, version } as ShipmentRow;
      if (publishing && values.shouldGenerateReturnShipment) {
        returnShipment = await createReturnShipment(store, row, parcels, prices?.back ?? null);
        await store.updateShipment(id, { returnShipmentId: returnShipment.id });
      }

      const parcelIds = parcels.map((p) => p.parcelId);
      const data = {
        ShipmentStatus: status,
        ProductCode: product.ProductCode,
        NumberOfParcels: parcels.length,
      };
      const events: DomainEvent[] = [
        {
          type: existing ? 'shipment.updated' : 'shipment.created',
          customerNr: body.CustomerId,
          shipmentId: id,
          parcelIds,
          data,
        },
      ];
      if (publishing) {
        events.push({
          type: 'shipment.published',
          customerNr: body.CustomerId,
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
          customerNr: body.CustomerId,
          shipmentId: returnShipment.id,
          parcelIds: returnShipment.parcelIds,
          data: {
            ShipmentStatus: STATUS.Published,
            ProductCode: product.ProductCode,
            NumberOfParcels: parcels.length,
            IsReturn: true,
            ReturnOf: id,
          },
        });
      }
      await emitEvents(tx, events);
      return {
        created: !existing,
        result: {
          ShipmentId: id,
          ShipmentStatus: status,
          ParcelIds: parcelIds,
          ReturnShipmentId: returnShipment?.id ?? existing?.returnShipmentId ?? null,
        },
        etag: etagOf({ id, version }),
      };
    }
  }

  /** Builds the spec's parcel records of a shipment (one per parcel, shipment fields repeated). */
  function recordsOf(row: ShipmentRow, parcels: ParcelValues[]): ShipmentRecordT[] {
    const a = row.addresses;
    const addressList = (
      [
        [1, a.Pickup],
        [2, a.Recipient],
        [3, a.Return],
        [4, a.PickupPoint],
      ] as const
    ).flatMap(([type, b]) =>
      b
        ? [
            {
              AddressTypeId: type,
              FirstName: b.FirstName,
              LastName: b.LastName,
              CompanyName: b.CompanyName,
              Address: b.Address,
              Address2: b.Address2,
              Zip: b.Zip,
              Place: b.Place,
              County: b.County,
              Country: b.Country,
            },
          ]
        : [],
    );
    const references = row.senderReference
      ? [{ ReferenceTypeId: 1, ReferenceLevel: 1, ReferenceText: row.senderReference }]
      : [];
    const pallets = row.unitCode === 'PL';
    // A 120×80 cm pallet takes 0.4 loading metres of a 240 cm wide trailer.
    const loadingCm2 = pallets
      ? parcels.reduce((sum, p) => sum + (p.lengthCm && p.widthCm ? p.lengthCm * p.widthCm : 9600), 0)
      : 0;
    const shared = {
      ParcelStatus: row.status,
      CustomerId: row.customerNr,
      IsReturn: row.isReturn,
      Addresses: addressList,
      PickupPhone: a.Pickup.Phone,
      PickupEmail: a.Pickup.Email,
      RecipientPhone: a.Recipient.Phone,
      RecipientEmail: a.Recipient.Email,
      ReturnPhone: a.Return?.Phone ?? null,
      ReturnEmail: a.Return?.Email ?? null,
      PickupPointId: row.pickupPointId,
      DeliveryDate: dateTime(row.deliveryDate, row.deliveryWindowFrom),
      DeliveryDateTo: dateTime(row.deliveryDate, row.deliveryWindowTo),
      PickupDate: dateTime(row.pickupDate, row.pickupWindowFrom),
      PickupDateTo: dateTime(row.pickupDate, row.pickupWindowTo),
      ProductCode: row.productCode,
      Services: row.services,
      DeliveryType: row.deliveryType,
      CommentToCarrier: row.commentToCarrier,
      GoodsDescription: row.goodsDescription,
      ShipmentId: row.id,
      UnitCode: row.unitCode,
      RecipientShallPay: row.recipientShallPay,
      RecipientCustomerId: row.recipientCustomerId,
      References: references,
      LoadingMeters: Math.round(loadingCm2 / 240) / 100,
      PalletSpaces: pallets ? parcels.length : 0,
    };
    return parcels.map((p) => ({
      ...shared,
      ParcelId: p.parcelId,
      Weight: p.weightG === null ? null : p.weightG / 1000,
      Length: p.lengthCm,
      Height: p.heightCm,
      Width: p.widthCm,
      Volume: p.volumeCm3 === null ? null : p.volumeCm3 / 1000,
    }));
  }

  /** A shipment the caller may see: unknown, cancelled and other customers' shipments are alike 404. */
  async function visibleShipment(account: Account, id: string): Promise<ShipmentRow> {
    const row = await createBookingStore(db).shipment(id);
    if (!row || row.cancelledAt || !canActFor(account, row.customerNr)) throw notFound(`Shipment ${id}`);
    return row;
  }

  return {
    /** The customer of a shipment that is not cancelled, or null (webhooks resolve registrations). */
    shipmentOwner: (shipmentId: string) => createBookingStore(db).shipmentOwner(shipmentId),

    /** The customer behind a parcel number of a shipment that is not cancelled, or null. */
    parcelOwner: (parcelId: string) => createBookingStore(db).parcelOwner(parcelId),

    /** `POST /Shipment/Update`: create or update, all or nothing. */
    async update(
      account: Account,
      body: ShipmentUpdate,
      options: UpdateOptions = {},
    ): Promise<UpdateOutcome> {
      assertCanActFor(account, body.CustomerId);
      const v = new Violations();
      const checked = await validateRequest(account, body, v);
      // Two requests creating the same customer-given ShipmentId at once: the loser retries as an update.
      for (let attempt = 0; ; attempt++) {
        try {
          const priced = v.empty ? await priceAhead(body, checked) : null;
          return await updateInTransaction(body, checked, new Violations(v), options, priced);
        } catch (e) {
          if (attempt === 0 && isUniqueViolation(e, 'shipments_pkey')) continue;
          // The parcels changed between pricing and writing (a concurrent update): price again.
          if (e instanceof StaleQuote && attempt < 5) continue;
          if (isUniqueViolation(e, 'parcels_parcel_id_idx')) {
            throw new DomainError(
              'conflict',
              'parcel_id_taken',
              'A ParcelId of this request was taken by another shipment at the same moment; try again.',
            );
          }
          throw e;
        }
      }
    },

    /** Both read paths: the shipment's parcel records, and its ETag. */
    async read(account: Account, id: string): Promise<{ records: ShipmentRecordT[]; etag: string }> {
      const row = await visibleShipment(account, id);
      const parcels = await createBookingStore(db).parcelsOf(id);
      return { records: recordsOf(row, parcels), etag: etagOf(row) };
    },

    /** A published shipment as its labels print it; drafts have no labels yet (409). */
    async labelShipment(account: Account, id: string): Promise<LabelShipment> {
      const row = await visibleShipment(account, id);
      if (row.status !== STATUS.Published) {
        throw new DomainError(
          'conflict',
          'shipment_not_published',
          `Shipment ${id} is not Published: labels exist only for booked shipments.`,
        );
      }
      const parcels = await createBookingStore(db).parcelsOf(id);
      const rules = await deps.catalog.rules();
      const a = row.addresses;
      const destinationZip = (a.PickupPoint ?? a.Recipient).Zip;
      const domestic = ((a.PickupPoint ?? a.Recipient).Country ?? 'NO') === 'NO';
      const destination = domestic && destinationZip ? await deps.postalCodes.find(destinationZip) : null;
      const block = <P extends string>(prefix: P, b: AddressBlock | null) =>
        Object.fromEntries(
          (
            [
              'CompanyName',
              'FirstName',
              'LastName',
              'Address',
              'Address2',
              'Zip',
              'Place',
              'Country',
              'Phone',
            ] as const
          ).map((f) => [`${prefix}${f}`, b?.[f] ?? null]),
        );
      return {
        ShipmentId: row.id,
        ProductCode: row.productCode,
        ProductName: rules.product(row.productCode)?.Name ?? row.productCode,
        Services: row.services.map((code) => ({
          ServiceCode: code,
          Name: rules.service(code)?.Name ?? code,
        })),
        Parcels: parcels.map((p) => ({
          ParcelId: p.parcelId,
          WeightKg: p.weightG === null ? null : p.weightG / 1000,
        })),
        ...block('Pickup', a.Pickup),
        ...block('Recipient', a.Recipient),
        ...block('PickupPoint', a.PickupPoint),
        PickupPointId: row.pickupPointId,
        DestinationTerminal: destination?.terminal ?? null,
        SenderReference: row.senderReference,
        IsReturn: row.isReturn,
        DeliveryDate: row.deliveryDate,
        PickupDate: row.pickupDate,
      };
    },

    /** `DELETE /v2/Shipment/{id}`: cancels a shipment until its first pickup scan. */
    async cancel(account: Account, id: string): Promise<void> {
      await db.transaction(async (tx) => {
        const store = createBookingStore(tx);
        const row = await store.lockShipment(id);
        if (!row || row.cancelledAt || !canActFor(account, row.customerNr)) throw notFound(`Shipment ${id}`);
        if (row.pickedUpAt) {
          throw new DomainError(
            'conflict',
            'shipment_picked_up',
            `Shipment ${id} was picked up and can no longer be cancelled.`,
          );
        }
        // The return shipment generated with it goes too, unless the carrier already has it.
        const linked = row.returnShipmentId ? await store.lockShipment(row.returnShipmentId) : null;
        const cancelling = [row, ...(linked && !linked.cancelledAt && !linked.pickedUpAt ? [linked] : [])];
        const events: DomainEvent[] = [];
        for (const r of cancelling) {
          await store.updateShipment(r.id, { cancelledAt: clock(), version: r.version + 1 });
          events.push({
            type: 'shipment.cancelled',
            customerNr: r.customerNr,
            shipmentId: r.id,
            parcelIds: (await store.parcelsOf(r.id)).map((p) => p.parcelId),
            data: { ShipmentStatus: r.status, ...(r.isReturn ? { IsReturn: true, ReturnOf: id } : {}) },
          });
        }
        await emitEvents(tx, events);
      });
    },
  };
}

function isUniqueViolation(e: unknown, constraint: string): boolean {
  const err = e as { code?: string; constraint?: string; cause?: { code?: string; constraint?: string } };
  const c = err.cause ?? err;
  return (
    c.code === '23505' &&
    (c.constraint === constraint || String((c as { message?: string }).message ?? '').includes(constraint))
  );
}

export type { ShipmentStatus };
