import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, buildTestApp, json, type TestContext } from '../../test/helpers';

// Monday 23 November 2026, 10:00 in Oslo.
const NOW = new Date('2026-11-23T09:00:00Z');

let ctx: TestContext;
let key: string;
let shipment: { ShipmentId: string; ParcelIds: string[] };
let draft: { ShipmentId: string };

const book = async (status: string, extra: object = {}) => {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(key),
    payload: {
      ShipmentStatus: status,
      CustomerId: '1000',
      ProductCode: '43',
      DeliveryType: 1,
      Services: ['15'],
      SenderReference: 'Ordre 42 / Innkjøp Ærø-Ålesund',
      PickupCompanyName: 'Ærlige Øl & Åkervin AS',
      PickupAddress: 'Strømsveien 266',
      PickupZip: '0668',
      PickupPlace: 'OSLO',
      RecipientCompanyName: 'Bjørnstjerne Æsøy Blåbærgården',
      RecipientAddress: 'Kjøpmannsgata 12',
      RecipientZip: '7013',
      RecipientPlace: 'TRONDHEIM',
      RecipientPhone: '+4791234567',
      Parcels: [{ Weight: 12.5 }, { Weight: 3 }],
      ...extra,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return json<{ ShipmentId: string; ParcelIds: string[] }>(res);
};

beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => NOW });
  key = await ctx.keyFor({ scopes: ['labels', 'booking'] });
  shipment = await book('Published');
  draft = await book('Draft');
});
afterAll(() => ctx.close());

const get = (url: string, k = key) => ctx.app.inject({ method: 'GET', url, headers: bearer(k) });

describe('GET /v1/labels/{shipmentId}', () => {
  test('streams a PDF with one page per parcel', async () => {
    const res = await get(`/v1/labels/${shipment.ShipmentId}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`inline; filename="kolli-${shipment.ShipmentId}.pdf"`);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const doc = await getDocument({ data: new Uint8Array(res.rawPayload), verbosity: 0 }).promise;
    expect(doc.numPages).toBe(2);
  });

  test('each page prints its parcel of the booked shipment: SSCC, names, postal codes, terminal, n / m', async () => {
    const res = await get(`/v1/labels/${shipment.ShipmentId}`);
    const doc = await getDocument({ data: new Uint8Array(res.rawPayload), verbosity: 0 }).promise;
    const terminal = json<{ Terminal: string }>(await get('/v1/postalcodes/7013')).Terminal;
    for (const [i, parcelId] of shipment.ParcelIds.entries()) {
      const page = await doc.getPage(i + 1);
      const text = (await page.getTextContent()).items
        .map((item) => ('str' in item ? item.str : ''))
        .join(' ');
      // The human-readable SSCC under the barcode, grouped as GS1 prints it.
      expect(text.replace(/\s/g, '')).toContain(`(00)${parcelId}`);
      expect(text).toContain('Bjørnstjerne Æsøy Blåbærgården');
      expect(text).toContain('Ærlige Øl & Åkervin AS');
      expect(text).toContain('7013');
      expect(text).toContain(terminal);
      expect(text).toContain(`${i + 1} / 2`);
      expect(text).toContain(shipment.ShipmentId);
    }
  });

  test('answers ZPL for format=zpl (case-insensitive), one block per parcel', async () => {
    const res = await get(`/v1/labels/${shipment.ShipmentId}?FORMAT=ZPL`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="kolli-${shipment.ShipmentId}.zpl"`,
    );
    expect(res.body.match(/\^XA/g)).toHaveLength(2);
    expect(res.body).toContain(`^FD>;>800${shipment.ParcelIds[1]}^FS`);
    expect(res.body).toContain('Ærlige Øl & Åkervin AS');
  });

  test('a shipment whose client-chosen id is an 18-digit SSCC has labels too', async () => {
    const sscc = '370123450000001233';
    await book('Published', { ShipmentId: sscc });
    const res = await get(`/v1/labels/${sscc}?format=zpl`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toContain(sscc);
  });

  test('the pickup point prints in Norway and routes by its terminal, whatever the recipient’s country', async () => {
    const abroad = await book('Published', {
      ProductCode: 'EP',
      Services: [],
      RecipientCompanyName: 'Svensson AB',
      RecipientZip: '11122',
      RecipientPlace: 'STOCKHOLM',
      RecipientCountry: 'SE',
      PickupPointCompanyName: 'Kiosken Kirkenes',
      PickupPointAddress: 'Storgata 1',
      PickupPointZip: '9900',
      PickupPointPlace: 'KIRKENES',
      CustomsInformation: {
        Lines: [
          {
            GoodsDescription: 'Books',
            HsCode: '490199',
            Quantity: 1,
            GoodsValue: 100,
            CurrencyType: 'NOK',
            CountryOfOrigin: 'NO',
            GrossWeight: 2,
          },
        ],
      },
    });
    const zpl = (await get(`/v1/labels/${abroad.ShipmentId}?format=zpl`)).body;
    const terminal = json<{ Terminal: string }>(await get('/v1/postalcodes/9900')).Terminal;
    expect(zpl).toContain('^FD9900 KIRKENES^FS');
    expect(zpl).toMatch(new RegExp(`\\^FR\\^FH_\\^FD${terminal}\\^FS`));
    expect(zpl).toContain('^FD9900^FS');
    expect(zpl).not.toContain('SE-9900');
  });

  test('a pickup point block without a zip leaves the parcel, and its terminal, with the recipient', async () => {
    const nameOnly = await book('Published', { PickupPointCompanyName: 'Kiosken' });
    const zpl = (await get(`/v1/labels/${nameOnly.ShipmentId}?format=zpl`)).body;
    const terminal = json<{ Terminal: string }>(await get('/v1/postalcodes/7013')).Terminal;
    expect(zpl).not.toContain('PICKUP POINT');
    expect(zpl).toMatch(new RegExp(`\\^FR\\^FH_\\^FD${terminal}\\^FS`));
  });

  test('an unknown format or a malformed id is a 400 problem', async () => {
    const format = await get(`/v1/labels/${shipment.ShipmentId}?format=png`);
    expect(format.statusCode).toBe(400);
    expect(format.json().errors).toHaveProperty('format');
    for (const malformed of ['123', '7012345000000001812', '7012345000000001A']) {
      const id = await get(`/v1/labels/${malformed}`);
      expect(id.statusCode).toBe(400);
      expect(id.json().errors).toHaveProperty('shipmentId');
    }
  });

  test('unknown and foreign shipments answer 404, drafts 409', async () => {
    expect((await get('/v1/labels/70123450000000018')).statusCode).toBe(404);
    const other = await ctx.keyFor({ customerNrs: ['2000'], scopes: ['labels'] });
    expect((await get(`/v1/labels/${shipment.ShipmentId}`, other)).statusCode).toBe(404);
    expect((await get(`/v1/labels/${draft.ShipmentId}`)).statusCode).toBe(409);
  });

  test('needs the labels scope', async () => {
    const priceOnly = await ctx.keyFor({ scopes: ['price'] });
    expect((await get(`/v1/labels/${shipment.ShipmentId}`, priceOnly)).statusCode).toBe(403);
    const anonymous = await ctx.app.inject({ method: 'GET', url: `/v1/labels/${shipment.ShipmentId}` });
    expect(anonymous.statusCode).toBe(401);
  });
});
