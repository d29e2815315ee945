import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, buildTestApp, type TestContext } from '../../test/helpers';
import { canActFor } from '../auth/access';
import { DomainError, notFound } from '../lib/errors';
import { labelRoutes } from './routes';
import { sampleShipment, sampleSscc } from './sample';

const shipment = sampleShipment(2);
const DRAFT = '70123450000009990';

let ctx: TestContext;
let key: string;

beforeAll(async () => {
  ctx = await buildTestApp({
    extraRoutes: (app) => {
      // Stands in for booking: customer 1000 owns `shipment`; DRAFT is not published yet.
      app.register(labelRoutes, {
        loadLabelShipment: async (account, shipmentId) => {
          if (!canActFor(account, '1000')) throw notFound('The shipment');
          if (shipmentId === DRAFT) {
            throw new DomainError('conflict', 'shipment_draft', 'Labels exist only for published shipments.');
          }
          if (shipmentId !== shipment.ShipmentId) throw notFound('The shipment');
          return shipment;
        },
      });
    },
  });
  key = await ctx.keyFor({ scopes: ['labels'] });
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

  test('answers ZPL for format=zpl (case-insensitive), one block per parcel', async () => {
    const res = await get(`/v1/labels/${shipment.ShipmentId}?FORMAT=ZPL`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="kolli-${shipment.ShipmentId}.zpl"`,
    );
    expect(res.body.match(/\^XA/g)).toHaveLength(2);
    expect(res.body).toContain(`^FD>;>800${sampleSscc(2)}^FS`);
    expect(res.body).toContain('Ærlige Øl & Åkervin AS');
  });

  test('an unknown format or a malformed id is a 400 problem', async () => {
    const format = await get(`/v1/labels/${shipment.ShipmentId}?format=png`);
    expect(format.statusCode).toBe(400);
    expect(format.json().errors).toHaveProperty('format');
    const id = await get('/v1/labels/123');
    expect(id.statusCode).toBe(400);
  });

  test('unknown and foreign shipments answer 404, drafts 409', async () => {
    expect((await get('/v1/labels/70123450000000018')).statusCode).toBe(404);
    const other = await ctx.keyFor({ customerNrs: ['2000'], scopes: ['labels'] });
    expect((await get(`/v1/labels/${shipment.ShipmentId}`, other)).statusCode).toBe(404);
    expect((await get(`/v1/labels/${DRAFT}`)).statusCode).toBe(409);
  });

  test('needs the labels scope', async () => {
    const priceOnly = await ctx.keyFor({ scopes: ['price'] });
    expect((await get(`/v1/labels/${shipment.ShipmentId}`, priceOnly)).statusCode).toBe(403);
    const anonymous = await ctx.app.inject({ method: 'GET', url: `/v1/labels/${shipment.ShipmentId}` });
    expect(anonymous.statusCode).toBe(401);
  });
});
