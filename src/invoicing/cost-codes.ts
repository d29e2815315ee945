/**
 * How the cost type codes of CONTRACT §6 appear on invoices: the v1 report's `…Kr` field, the v2
 * report's amount type (F freight, A addition, D discount, S service) and the names of the cost in
 * Norwegian and English. Service codes are not listed: every service is a line of type S.
 */
export interface CostCodeFacts {
  v1Field: V1CostField;
  amountType: 'F' | 'A' | 'D';
  no: string;
  en: string;
}

export const V1_COST_FIELDS = [
  'AgreedFreightKr',
  'PickupAdditionKr',
  'DeliveryAdditionKr',
  'VariousAmount1Kr',
  'VariousAmount2Kr',
  'GiroServiceAdditionKr',
  'PaymentTransferFeeKr',
  'InvoiceFeeKr',
  'PrivateDeliveryKr',
  'PrivateWithPackingReturnKr',
  'PrivateWithDeviceReturnKr',
  'PrivateWithDeviceAndPackingReturnKr',
  'WarehouseRentalKr',
  'RedistributeKr',
  'ReturnProcessKr',
  'FreightDocumentKr',
  'PrivateAtWorkKr',
  'ManualWaybillAdditionKr',
  'WrongWeightAdditionKr',
  'MainFreightDiscountKr',
  'LocalFreightDiscountKr',
  'TollRoadAdditionKr',
  'EnergyAdditionKr',
  'PriceAdjustmentAdditionKr',
  'ParcelAdditionKr',
  'GpOverPgLimitAdditionKr',
  'WebTaKr',
  'EmployersTaxKr',
  'TollOsloRushAndEnvironmentKr',
  'PavementKr',
  'PavementWithReturnKr',
  'InfrastructureAdditionKr',
] as const;
export type V1CostField = (typeof V1_COST_FIELDS)[number];

export const COST_CODES: Readonly<Record<string, CostCodeFacts>> = {
  FREIGHT: { v1Field: 'AgreedFreightKr', amountType: 'F', no: 'Avtalt frakt', en: 'Agreed freight' },
  DISCOUNT: { v1Field: 'MainFreightDiscountKr', amountType: 'D', no: 'Fraktrabatt', en: 'Freight discount' },
  ENERGY: { v1Field: 'EnergyAdditionKr', amountType: 'A', no: 'Energitillegg', en: 'Energy surcharge' },
  TOLL: { v1Field: 'TollRoadAdditionKr', amountType: 'A', no: 'Bomtillegg', en: 'Toll road surcharge' },
  PRIVATE: {
    v1Field: 'PrivateDeliveryKr',
    amountType: 'A',
    no: 'Levering til privat',
    en: 'Private delivery',
  },
  DELIVERY_ADD: {
    v1Field: 'DeliveryAdditionKr',
    amountType: 'A',
    no: 'Leveringstillegg',
    en: 'Delivery surcharge',
  },
  PICKUP_ADD: { v1Field: 'PickupAdditionKr', amountType: 'A', no: 'Hentetillegg', en: 'Pickup surcharge' },
  // International bookings (priced DDU): their lines have no field of their own in the v1 record.
  ORIGIN_PICKUP: {
    v1Field: 'PickupAdditionKr',
    amountType: 'A',
    no: 'Henting i avsenderland',
    en: 'Pickup at origin',
  },
  EXPORT_CLEARANCE: {
    v1Field: 'VariousAmount2Kr',
    amountType: 'A',
    no: 'Utførselsfortolling',
    en: 'Export customs clearance',
  },
  IMPORT_CLEARANCE: {
    v1Field: 'VariousAmount2Kr',
    amountType: 'A',
    no: 'Innførselsfortolling',
    en: 'Import customs clearance',
  },
  DUTY_HANDLING: {
    v1Field: 'VariousAmount2Kr',
    amountType: 'A',
    no: 'Håndtering av toll og mva',
    en: 'Duty and VAT handling',
  },
  DANGEROUS_GOODS: { v1Field: 'VariousAmount2Kr', amountType: 'A', no: 'Farlig gods', en: 'Dangerous goods' },
};

/** Services have no field of their own in the v1 cost line; their sum is reported as VariousAmount1Kr. */
export const V1_SERVICES_FIELD: V1CostField = 'VariousAmount1Kr';

export const AMOUNT_TYPE_NAMES = { F: 'Freight', A: 'Addition', D: 'Discount', S: 'Service' } as const;
