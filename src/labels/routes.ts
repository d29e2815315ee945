import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Account } from '../auth/access';
import { answeredNotModified, contentTag } from '../http/conditional';
import { authErrors, problemResponses } from '../http/schemas';
import { type LabelShipment, toLabelModels } from './model';
import { renderPdf } from './pdf';
import { renderZpl } from './zpl';

export interface LabelRoutesOptions {
  /**
   * The published shipment `shipmentId` of a customer the caller may act for. Throws `notFound` for
   * an unknown, cancelled or foreign shipment (404) and a `conflict` DomainError for a draft (409).
   */
  loadLabelShipment(account: Account, shipmentId: string): Promise<LabelShipment>;
}

/** ZPL is plain UTF-8 text; `text/plain` lets any client, browser or print tool take it as is. */
export const ZPL_CONTENT_TYPE = 'text/plain; charset=utf-8';

const binary = (description: string) => ({
  description,
  content: {
    'application/pdf': { schema: { type: 'string', format: 'binary' } },
    [ZPL_CONTENT_TYPE]: { schema: { type: 'string' } },
  },
});

export const labelRoutes: FastifyPluginAsyncTypebox<LabelRoutesOptions> = async (
  app,
  { loadLabelShipment },
) => {
  app.get(
    '/v1/labels/:shipmentId',
    {
      config: { scope: 'labels' },
      schema: {
        tags: ['Labels'],
        summary: 'Labels of a booked shipment (10×15 cm PDF or ZPL II)',
        description:
          'One 10×15 cm label per parcel, in parcel order, with a GS1-128 barcode of the SSCC. `format=pdf` (default) streams a PDF; `format=zpl` answers ZPL II for 203 dpi printers, one `^XA…^XZ` block per parcel. Draft shipments answer 409.',
        params: Type.Object({
          shipmentId: Type.String({
            // A client-chosen id may be an SSCC (CONTRACT §5), as the original's booking page advised.
            pattern: '^[0-9]{17,18}$',
            'x-error': 'The shipmentId field must be a GSIN (17 digits) or an SSCC (18 digits).',
          }),
        }),
        querystring: Type.Object({
          format: Type.Optional(
            Type.String({
              pattern: '^([pP][dD][fF]|[zZ][pP][lL])$',
              description: '`pdf` (default) or `zpl`.',
              'x-error': "The format field must be 'pdf' or 'zpl'.",
            }),
          ),
        }),
        response: {
          200: binary('The labels.'),
          ...problemResponses(400, 404, 409),
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      const { shipmentId } = request.params;
      const format = (request.query.format ?? 'pdf').toLowerCase();
      // Loaded before any header goes out, so 404/409 are ordinary problem answers.
      const labels = toLabelModels(await loadLabelShipment(request.account, shipmentId));
      // The labels are a function of their facts: the tag is checked before anything is rendered.
      const etag = contentTag(JSON.stringify([format, labels]));
      reply.header('cache-control', 'private, no-store');
      if (answeredNotModified(request, reply, etag)) return reply;
      if (format === 'zpl') {
        return reply
          .type(ZPL_CONTENT_TYPE)
          .header('content-disposition', `attachment; filename="kolli-${shipmentId}.zpl"`)
          .send(renderZpl(labels));
      }
      const body = new PassThrough();
      renderPdf(labels, body, { title: `Kolli labels ${shipmentId}` }).catch((err: unknown) => {
        // The client hung up and Fastify destroyed the stream, which stopped the drawing: its own
        // doing, not a fault (docs/operations.md).
        if (body.destroyed) {
          request.log.info({ shipmentId }, 'client closed the connection mid-download');
          return;
        }
        // Headers are gone by now: log and cut the response so the client sees a broken download.
        request.log.error({ err, shipmentId }, 'label PDF rendering failed');
        body.destroy(err instanceof Error ? err : new Error(String(err)));
      });
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="kolli-${shipmentId}.pdf"`)
        .send(body);
    },
  );
};
