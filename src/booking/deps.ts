import type { CatalogService } from '../catalog/service';
import type { Config } from '../config';
import type { CustomerService } from '../customers/service';
import type { Db, Tx } from '../db/client';
import type { PostalCodeService } from '../reference-data/postal-codes';
import type { BookingPricing } from './pricing';
import type { ShipmentUpdateResult } from './schemas';

/** What booking depends on, and what an update answers; shared by the service and its parts. */

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
  pickupPoints: { get(id: number): Promise<{ Zip: string } | null> };
  clock?: () => Date;
}

export interface UpdateOptions {
  /** `If-Match`: the update applies only to this version (412 otherwise). */
  ifMatch?: string;
  /** Runs inside the booking's transaction, after the change (the idempotency record is written here). */
  within?: (tx: Tx, outcome: UpdateOutcome) => Promise<void>;
  /** `POST /Shipment/Book` and `/v2/Shipment/Book`: a ShipmentId that already exists is a 409. */
  createOnly?: boolean;
  /** Rules the wire shape broke before mapping (v2 `Addresses`), reported with the booking's own. */
  violations?: Record<string, string[]>;
}

export interface UpdateOutcome {
  created: boolean;
  result: ShipmentUpdateResult;
  etag: string;
}
