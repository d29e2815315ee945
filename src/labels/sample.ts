import { gs1CheckDigit, type LabelShipment } from './model';

/** An SSCC with the demo GS1 prefix and a valid check digit, for serial `n`. */
export function sampleSscc(n: number): string {
  const body = `3701234${String(n).padStart(10, '0')}`;
  return `${body}${gs1CheckDigit(body)}`;
}

/**
 * A realistic shipment with Norwegian letters in every address block, for tests, the bench and the
 * dev script that renders a label to PNG.
 */
export function sampleShipment(parcels = 3, overrides: Partial<LabelShipment> = {}): LabelShipment {
  const gsinBody = '7012345000000123';
  return {
    ShipmentId: `${gsinBody}${gs1CheckDigit(gsinBody)}`,
    ProductCode: '43',
    ProductName: 'System',
    Services: [
      { ServiceCode: '15', Name: 'Pre-notice SMS' },
      { ServiceCode: '35', Name: 'Fix Day' },
    ],
    Parcels: Array.from({ length: parcels }, (_, i) => ({ ParcelId: sampleSscc(i + 1), WeightKg: 12.5 + i })),
    PickupCompanyName: 'Ærlige Øl & Åkervin AS',
    PickupFirstName: null,
    PickupLastName: null,
    PickupAddress: 'Strømsveien 266',
    PickupAddress2: null,
    PickupZip: '0668',
    PickupPlace: 'Oslo',
    PickupCountry: 'NO',
    RecipientCompanyName: 'Bjørnstjerne Æsøy Blåbærgården',
    RecipientFirstName: 'Åse',
    RecipientLastName: 'Løvås',
    RecipientAddress: 'Kjøpmannsgata 12',
    RecipientAddress2: 'Bakgården, 2. etg.',
    RecipientZip: '7013',
    RecipientPlace: 'Trondheim',
    RecipientCountry: 'NO',
    RecipientPhone: '+4791234567',
    DestinationTerminal: 'TRD',
    SenderReference: 'Ordre 2026-11-0042 / Innkjøp Ærø-Ålesund (kundens fulle referanse)',
    IsReturn: false,
    DeliveryDate: '2026-11-25T00:00:00',
    PickupDate: '2026-11-23',
    ...overrides,
  };
}
