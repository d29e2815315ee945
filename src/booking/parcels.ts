import type { Product } from '../catalog/service';
import type { Violations } from '../lib/errors';
import { dm3ToCm3, kgToGrams, loadingMetres, wholeKgToGrams } from '../lib/units';
import type { ShipmentUpdate } from './schemas';
import type { ParcelValues } from './store/shipments';

/** The parcels of a booking request, merged with the stored ones, and the rules on their measures. */

export interface MergedParcel extends ParcelValues {
  /** Index in the request's Parcels, when the request named it. */
  requestIndex: number | null;
  /** Needs a generated SSCC. */
  generated: boolean;
}

/** Applies the request's parcel upserts and deletes to the current parcels. */
export function mergeParcels(current: ParcelValues[], requested: ShipmentUpdate['Parcels'], v: Violations) {
  const byId = new Map(
    current.map((p) => [p.parcelId, { ...p, requestIndex: null as number | null, generated: false }]),
  );
  const added: MergedParcel[] = [];
  const seen = new Set<string>();
  let deleted = 0;
  requested.forEach((p, i) => {
    if (p.ParcelId !== undefined) {
      if (seen.has(p.ParcelId)) {
        v.add(`Parcels[${i}].ParcelId`, `ParcelId ${p.ParcelId} is given more than once.`);
        return;
      }
      seen.add(p.ParcelId);
    }
    if (p.Delete) {
      if (p.ParcelId === undefined) {
        v.add(`Parcels[${i}].ParcelId`, 'The ParcelId field is required to delete a parcel.');
      } else if (!byId.has(p.ParcelId)) {
        v.add(`Parcels[${i}].ParcelId`, `There is no parcel ${p.ParcelId} in this shipment to delete.`);
      } else {
        byId.delete(p.ParcelId);
        deleted++;
      }
      return;
    }
    const known = p.ParcelId !== undefined ? byId.get(p.ParcelId) : undefined;
    // A named parcel keeps the measures the request leaves out; a new one starts unmeasured.
    // (Assigned field by field, not spread: a booking of 999 parcels runs this 999 times.)
    const parcel: MergedParcel = known ?? {
      parcelId: p.ParcelId ?? '',
      seq: 0,
      weightG: null,
      lengthCm: null,
      heightCm: null,
      widthCm: null,
      volumeCm3: null,
      requestIndex: i,
      generated: p.ParcelId === undefined,
    };
    if (p.Weight !== undefined) parcel.weightG = kgToGrams(p.Weight);
    if (p.Length !== undefined) parcel.lengthCm = p.Length;
    if (p.Height !== undefined) parcel.heightCm = p.Height;
    if (p.Width !== undefined) parcel.widthCm = p.Width;
    if (p.Volume !== undefined) parcel.volumeCm3 = dm3ToCm3(p.Volume);
    if (known) known.requestIndex = i;
    else added.push(parcel);
  });
  const merged = [...byId.values(), ...added];
  merged.forEach((p, i) => {
    p.seq = i + 1;
  });
  return { merged, deleted, customerGivenNew: added.filter((p) => !p.generated) };
}

export function checkMeasures(
  parcels: MergedParcel[],
  product: Product | null,
  publishing: boolean,
  v: Violations,
) {
  const at = (p: MergedParcel, field: string) =>
    p.requestIndex === null ? 'Parcels' : `Parcels[${p.requestIndex}].${field}`;
  const checkLength = (p: MergedParcel, name: string, value: number | null, max: number, of: Product) => {
    if (value !== null && value > max) {
      v.add(at(p, name), `The ${name} of a parcel of product ${of.ProductCode} may be at most ${max} cm.`);
    }
  };
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
    if (p.weightG !== null && p.weightG > wholeKgToGrams(product.MaxParcelWeightKg)) {
      v.add(
        at(p, 'Weight'),
        `A parcel of product ${product.ProductCode} may weigh at most ${product.MaxParcelWeightKg} kg.`,
      );
    }
    // Checked one by one, not through a list of limits: that list was 4 arrays a parcel, 999 times.
    checkLength(p, 'Length', p.lengthCm, product.MaxLengthCm, product);
    checkLength(p, 'Width', p.widthCm, product.MaxWidthCm, product);
    checkLength(p, 'Height', p.heightCm, product.MaxHeightCm, product);
  }
  if (product && totalG > wholeKgToGrams(product.MaxShipmentWeightKg)) {
    v.add(
      'Parcels',
      `A shipment of product ${product.ProductCode} may weigh at most ${product.MaxShipmentWeightKg} kg in all.`,
    );
  }
}

/**
 * The floor of a pallet given without length and width: a 120×80 cm EUR pallet. The invoicing read
 * (`store/read-models.ts`, `floorCm2`) sums the same floors in SQL.
 */
export const PALLET_FLOOR_CM2 = 120 * 80;

/**
 * A pallet shipment's (unit code `PL`) pallet spaces and loading metres: a space a pallet, and the
 * floor they take of a 240 cm wide trailer (a 120×80 cm pallet takes 0.4 m). Other unit codes take
 * neither. The record shows them and the booked price charges them, as the calculator charges
 * `NumberOfPalletSpaces` and `NumberOfLoadMeters` (CONTRACT §5, §6).
 */
export function palletLoad(
  unitCode: string,
  parcels: readonly Pick<ParcelValues, 'lengthCm' | 'widthCm'>[],
): { palletSpaces: number; loadingMeters: number } {
  const floorCm2 = parcels.reduce(
    (sum, p) => sum + (p.lengthCm && p.widthCm ? p.lengthCm * p.widthCm : PALLET_FLOOR_CM2),
    0,
  );
  return palletLoadOfFloor(unitCode, parcels.length, floorCm2);
}

/** `palletLoad` from the parcels' count and their floors' sum (as the invoicing read has them). */
export function palletLoadOfFloor(
  unitCode: string,
  count: number,
  floorCm2: number,
): { palletSpaces: number; loadingMeters: number } {
  if (unitCode !== 'PL') return { palletSpaces: 0, loadingMeters: 0 };
  return { palletSpaces: count, loadingMeters: loadingMetres(floorCm2) };
}
