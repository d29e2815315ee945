import { type Account, assertCanActFor } from '../auth/access';
import type { Violations } from '../lib/errors';
import { addWorkingDays } from '../schedule/calendar';
import { destinationZip } from './addresses';
import type { BookingDeps } from './deps';
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
  returnAddresses,
  STATUS,
} from './rules';
import type { ShipmentUpdate } from './schemas';

/** What validation reads: the catalogue, the registers, customers, the schedule and pickup points. */
export type ValidationDeps = Pick<
  BookingDeps,
  'catalog' | 'postalCodes' | 'customers' | 'schedule' | 'pickupPoints'
>;

/**
 * Every rule of a booking request that needs no stored shipment: the request on its own, the
 * catalogue, the registers, the schedule. Violations are collected in `v`, never thrown one by one.
 */
export async function validateRequest(
  deps: ValidationDeps,
  account: Account,
  body: ShipmentUpdate,
  v: Violations,
) {
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
  const use = {
    final: status !== null && status >= STATUS.ReadyForPublish,
    // A named pickup point (an address block alone names none), or the product's only way.
    toAPoint: body.PickupPointId != null || product?.PickupPoints === true,
    // With no return address, a generated return goes back to the pickup address.
    withReturn: body.ShouldGenerateReturnShipment === true,
  };
  checkZips(addresses, await deps.postalCodes.categoriesOf(zips), use, v);
  checkCustoms(addresses, customs, v);

  const customer = await deps.customers.known(body.CustomerId);
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
      const payer = await deps.customers.known(String(body.RecipientCustomerId));
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
      (await deps.customers.known(String(body.PayerCustomerId))) !== null,
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
    const point = await deps.pickupPoints.get(body.PickupPointId);
    v.check('PickupPointId', point !== null, `Pickup point ${body.PickupPointId} does not exist.`);
    // The id says where the parcel goes: an address of another place would route, plan and price
    // it there while the point is elsewhere.
    const zip = addresses.PickupPoint?.Zip;
    if (point && zip) {
      v.check(
        'PickupPointZip',
        zip === point.Zip,
        `Pickup point ${body.PickupPointId} is at ${point.Zip}, not ${zip}.`,
      );
    }
  }

  // Dates: a working day, at most 3 days after the earliest date of the schedule.
  const desiredPickup = dateOf(body.PickupDate, 'PickupDate', v);
  const desiredDelivery = dateOf(body.DeliveryDate, 'DeliveryDate', v);
  const earliestPickup = deps.schedule.earliestPickupDate();
  if (desiredPickup) checkDesiredDate('PickupDate', desiredPickup, earliestPickup, v);
  // Plans from the desired pickup date unless that date itself was refused: a violation elsewhere in
  // the request must not move the plan and call a valid DeliveryDate out of range.
  const pickupDate = desiredPickup && !v.has('PickupDate') ? desiredPickup : earliestPickup;
  const domestic = addresses.Pickup.Country === 'NO' && addresses.Recipient.Country === 'NO';
  const destination = destinationZip(addresses);
  const plan =
    product &&
    domestic &&
    addresses.Pickup.Zip &&
    destination &&
    !v.has('PickupZip') &&
    !v.has('RecipientZip') &&
    !v.has('PickupPointZip')
      ? await deps.schedule.deliveryPlan({
          fromZip: addresses.Pickup.Zip,
          toZip: destination,
          productCode: product.ProductCode,
          pickupDate,
        })
      : null;
  if (desiredDelivery)
    // Abroad the schedule has no transit times; still, nothing abroad arrives on its pickup day.
    checkDesiredDate(
      'DeliveryDate',
      desiredDelivery,
      plan?.EarliestDeliveryDate ?? (domestic ? pickupDate : addWorkingDays(pickupDate, 1)),
      v,
    );
  // A generated return shipment is published with its original and goes back the other way once the
  // original has arrived: planned for pickup the working day after the original's delivery date.
  const back = plan && product && body.ShouldGenerateReturnShipment ? returnAddresses(addresses) : null;
  const returnPickupDate =
    back && plan ? addWorkingDays(desiredDelivery ?? plan.EarliestDeliveryDate, 1) : null;
  const returnPlan =
    back?.Pickup.Zip && back.Recipient.Zip && product && returnPickupDate
      ? await deps.schedule.deliveryPlan({
          fromZip: back.Pickup.Zip,
          toZip: back.Recipient.Zip,
          productCode: product.ProductCode,
          pickupDate: returnPickupDate,
        })
      : null;

  if (status !== null && status >= STATUS.ReadyForPublish) {
    checkCompleteAddresses(addresses, v);
    // A pickup-point product goes to a point, never to the door: one must be named before it ships.
    if (product?.PickupPoints && body.PickupPointId === undefined) {
      v.add(
        'PickupPointId',
        `Product ${product.ProductCode} delivers to a pickup point: give PickupPointId and the PickupPoint address (GET /v1/pickuppoints?postalCode=${addresses.Recipient.Zip ?? '…'} lists the nearest).`,
      );
    }
  }
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
    returnPlan,
    returnPickupDate,
    desiredDelivery,
    desiredPickup,
  };
}

/** A request whose stand-alone rules were checked, with what they resolved. */
export type Checked = Awaited<ReturnType<typeof validateRequest>>;
