/**
 * Dev script: renders sample labels to PDF, ZPL and PNG so a person can look at them.
 *
 *   node --import tsx scripts/render-label-png.ts [outDir]
 *
 * Needs `pdftoppm` (Debian: poppler-utils) for the PNGs; writes `label.pdf` (plain, pickup point,
 * return), `label.zpl` and `label-N.png` at 203 dpi. Decode the barcode with `zbarimg label-1.png`
 * (zbar-tools) if installed.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { toLabelModels } from '../src/labels/model';
import { renderPdf } from '../src/labels/pdf';
import { sampleShipment } from '../src/labels/sample';
import { renderZpl } from '../src/labels/zpl';

const dir = process.argv[2] ?? 'var/labels';
mkdirSync(dir, { recursive: true });

const plain = toLabelModels(sampleShipment(2));
const pickupPoint = toLabelModels(
  sampleShipment(1, {
    ProductCode: 'HE',
    ProductName: 'Home Delivery Parcel',
    RecipientCompanyName: null,
    RecipientAddress2: null,
    PickupPointId: 4711,
    PickupPointCompanyName: 'Coop Extra Øya',
    PickupPointAddress: 'Klostergata 44',
    PickupPointZip: '7030',
    PickupPointPlace: 'Trondheim',
    Services: [{ ServiceCode: '16', Name: 'Pre-notice e-mail' }],
  }),
);
const ret = toLabelModels(
  sampleShipment(1, {
    IsReturn: true,
    ProductCode: 'HJ',
    ProductName: 'Return Parcel',
    Services: [],
    SenderReference: 'RMA-88',
    DeliveryDate: null,
  }),
);
const labels = [...plain, ...pickupPoint, ...ret];

const pdf = join(dir, 'label.pdf');
const file = createWriteStream(pdf);
await renderPdf(labels, file);
await finished(file);
writeFileSync(join(dir, 'label.zpl'), renderZpl(labels));
execFileSync('pdftoppm', ['-png', '-r', '203', pdf, join(dir, 'label')]);
console.log(`wrote ${pdf}, ${join(dir, 'label.zpl')} and ${join(dir, 'label-*.png')}`);
