import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { contentTag, noneMatch } from '../http/conditional';
import { authErrors, problemResponses } from '../http/schemas';
import { renderInvoicePdf } from './pdf';
import {
  CreditNoteRequest,
  CreditNoteResponse,
  DetailsQuery,
  InvoiceLine,
  InvoiceReportV1,
  InvoiceReportV2,
  ReportQuery,
  ReportV2Query,
  RunRequest,
  RunResponse,
} from './schemas';
import type { InvoicingService } from './service';

export const invoicingRoutes: FastifyPluginAsyncTypebox<{ invoicing: InvoicingService }> = async (
  app,
  { invoicing },
) => {
  const tags = ['Invoices'];
  const config = { scope: 'invoice' as const };

  app.get(
    '/v1/InvoiceGetInvoiceReport',
    {
      config,
      schema: {
        tags,
        summary: 'Invoiced shipments of a payer (v1 record)',
        description:
          'One record per invoiced shipment that `Customernr` pays in the role `Payer`, picked up in the interval. `Details` holds one cost line with every `…Kr` field (`"0.00"` where there is no such cost). Credit notes appear as records with negative amounts.',
        querystring: ReportQuery,
        response: { 200: Type.Array(InvoiceReportV1), ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => invoicing.reportV1(request.account, request.query),
  );

  app.get(
    '/v2/Invoice/GetInvoiceReport',
    {
      config,
      schema: {
        tags,
        summary: 'Invoiced shipments of a payer (v2 record)',
        querystring: ReportV2Query,
        response: { 200: Type.Array(InvoiceReportV2), ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => invoicing.reportV2(request.account, request.query),
  );

  app.get(
    '/v1/Invoice/GetInvoiceDetails',
    {
      config,
      schema: {
        tags,
        summary: 'The lines of one invoice',
        description:
          'One row per cost line of each shipment on the invoice. An invoice that does not exist or that `Customernr` does not pay answers an empty array, as a report with no rows.',
        querystring: DetailsQuery,
        response: { 200: Type.Array(InvoiceLine), ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => invoicing.details(request.account, request.query),
  );

  app.get(
    '/v1/Invoice/:invoicenr/pdf',
    {
      config,
      schema: {
        tags,
        summary: 'An invoice or credit note as PDF',
        description:
          'The issued document (A4): payer, number, KID, dates, one row per shipment and the total in NOK excluding VAT. 404 for an invoice the key cannot act for, as for one that does not exist.',
        params: Type.Object({
          invoicenr: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The invoice number.' }),
        }),
        response: {
          200: {
            description: 'The PDF.',
            content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
          },
          ...problemResponses(400, 404),
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      const { invoice, lines } = await invoicing.document(request.account, request.params.invoicenr);
      // An issued invoice never changes: its facts tag the document, checked before rendering.
      const etag = contentTag(
        JSON.stringify({ invoice, lines }, (_k, v) => (typeof v === 'bigint' ? `${v}` : v)),
      );
      reply.header('etag', etag);
      if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304 as 200).send();
      const body = new PassThrough();
      renderInvoicePdf(invoice, lines, body).catch((err: unknown) => {
        request.log.error({ err, invoiceNr: invoice.invoiceNr }, 'invoice PDF rendering failed');
        body.destroy(err instanceof Error ? err : new Error(String(err)));
      });
      return reply
        .type('application/pdf')
        .header('cache-control', 'private, no-store')
        .header('content-disposition', `inline; filename="kolli-invoice-${invoice.invoiceNr}.pdf"`)
        .send(body);
    },
  );

  app.post(
    '/admin/invoicing/runs',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['Administration'],
        summary: 'Run invoicing up to a date',
        description:
          'Invoices every picked-up, not yet invoiced shipment picked up on or before `ToDate`: one invoice per payer, numbered without gaps, in one transaction. Answers when the run has finished.',
        body: RunRequest,
        response: { 201: RunResponse, ...problemResponses(400), ...authErrors },
      },
    },
    async (request, reply) => reply.code(201).send(await invoicing.run(request.body)),
  );

  app.post(
    '/admin/invoicing/credit-notes',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['Administration'],
        summary: 'Credit shipments of an issued invoice',
        description:
          'Issues a credit note (a new invoice number, negative amounts) for the named shipments of an invoice, or for all of them. The invoice itself never changes.',
        body: CreditNoteRequest,
        response: { 201: CreditNoteResponse, ...problemResponses(400), ...authErrors },
      },
    },
    async (request, reply) => reply.code(201).send(await invoicing.creditNote(request.body)),
  );
};
