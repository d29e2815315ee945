import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { answeredNotModified, contentTag } from '../http/conditional';
import { rulesOf } from '../http/domain-rules';
import { answerArrayPages } from '../http/json-stream';
import { authErrors, problemResponses } from '../http/schemas';
import { INT32_MAX } from '../lib/int32';
import { checkInvoiceListQuery, type InvoiceListQuery as InvoiceListParams } from './invoice-list';
import { renderInvoicePdf } from './pdf';
import {
  checkInvoiceQuery,
  checkReportQuery,
  type InvoiceQuery,
  type ReportQuery as ReportParams,
} from './reports';
import {
  CreditNoteRequest,
  CreditNoteResponse,
  DetailsQuery,
  InvoiceLine,
  InvoiceListQuery,
  InvoiceReportV1,
  InvoiceReportV2,
  InvoiceReportV3,
  InvoiceSummary,
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
  // The reads' rules also judge what the schema accepted of a refused query, so one 400 lists all
  // (they report by throwing, as the reads themselves do).
  const reportConfig = { ...config, queryRules: rulesOf<ReportParams>(checkReportQuery) };
  const invoiceConfig = { ...config, queryRules: rulesOf<InvoiceQuery>(checkInvoiceQuery) };

  app.get(
    '/v1/InvoiceGetInvoiceReport',
    {
      config: reportConfig,
      schema: {
        tags,
        summary: 'Invoiced shipments of a payer (v1 record)',
        description:
          'One record per invoiced shipment that `Customernr` pays in the role `Payer`, picked up in the interval. `Details` holds one cost line with every `…Kr` field (`"0.00"` where there is no such cost). Credit notes appear as records with negative amounts.',
        querystring: ReportQuery,
        response: { 200: Type.Array(InvoiceReportV1), ...problemResponses(400), ...authErrors },
      },
    },
    async (request, reply) =>
      answerArrayPages(
        request,
        reply,
        await invoicing.reportV1(request.account, request.query),
        InvoiceReportV1,
      ),
  );

  app.get(
    '/v2/Invoice/GetInvoiceReport',
    {
      config: reportConfig,
      schema: {
        tags,
        summary: 'Invoiced shipments of a payer (v2 record)',
        querystring: ReportV2Query,
        response: { 200: Type.Array(InvoiceReportV2), ...problemResponses(400), ...authErrors },
      },
    },
    async (request, reply) =>
      answerArrayPages(
        request,
        reply,
        await invoicing.reportV2(request.account, request.query),
        InvoiceReportV2,
      ),
  );

  // The v3 reports of the original service (CONTRACT §14): two paths for the same report.
  for (const url of ['/v3/InvoiceGetInvoiceReport', '/v3/Invoice/GetInvoiceReport']) {
    app.get(
      url,
      {
        config: reportConfig,
        schema: {
          tags,
          summary:
            url === '/v3/Invoice/GetInvoiceReport'
              ? 'Invoiced shipments of a payer (v3 record)'
              : 'Invoiced shipments of a payer (v3 record, the original’s second path)',
          description:
            'The v2 query; each record is the v2 record plus `GiroKid`, `RecipientReference`, `OrderReference`, `LoadingMeters`, `PalletPlaces`, `PaymentCode`, `UnitCode` and `Units`.',
          querystring: ReportV2Query,
          response: { 200: Type.Array(InvoiceReportV3), ...problemResponses(400), ...authErrors },
        },
      },
      async (request, reply) =>
        answerArrayPages(
          request,
          reply,
          await invoicing.reportV3(request.account, request.query),
          InvoiceReportV3,
        ),
    );
  }

  app.get(
    '/v3/Invoice/GetInvoiceReportByInvoicenr',
    {
      config: invoiceConfig,
      schema: {
        tags,
        summary: 'The shipments of one invoice (v3 record)',
        description:
          'The v3 records of invoice `Invoicenr` of customer `Customernr`; an invoice the customer does not pay answers an empty array.',
        querystring: DetailsQuery,
        response: { 200: Type.Array(InvoiceReportV3), ...problemResponses(400), ...authErrors },
      },
    },
    async (request, reply) =>
      answerArrayPages(
        request,
        reply,
        await invoicing.reportV3ByInvoice(request.account, request.query),
        InvoiceReportV3,
      ),
  );

  app.get(
    '/v1/Invoice/list',
    {
      config: { ...config, queryRules: rulesOf<InvoiceListParams>(checkInvoiceListQuery) },
      schema: {
        tags,
        summary: 'The invoices of a customer (extension)',
        description:
          'The invoices and credit notes `Customernr` pays, issued from `FromInvoiceDate` to `ToInvoiceDate` (inclusive, at most 366 days), by number: one small record each, to find an invoice without reading a period of the invoice report.',
        querystring: InvoiceListQuery,
        response: { 200: Type.Array(InvoiceSummary), ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => invoicing.invoiceList(request.account, request.query),
  );

  app.get(
    '/v1/Invoice/GetInvoiceDetails',
    {
      config: invoiceConfig,
      schema: {
        tags,
        summary: 'The lines of one invoice',
        description:
          'One row per cost line of each shipment on the invoice. An invoice that does not exist or that `Customernr` does not pay answers an empty array, as a report with no rows.',
        querystring: DetailsQuery,
        response: { 200: Type.Array(InvoiceLine), ...problemResponses(400), ...authErrors },
      },
    },
    async (request, reply) =>
      answerArrayPages(request, reply, await invoicing.details(request.account, request.query), InvoiceLine),
  );

  app.get(
    '/v1/Invoice/:invoicenr/pdf',
    {
      config,
      schema: {
        tags,
        summary: 'An invoice or credit note as PDF',
        description:
          'The issued document (A4) with what bokføringsforskriften § 5-1-1 asks of an invoice: seller and buyer (names, organisation numbers, addresses), number, dates and delivery period, each shipment with its cost lines, amounts excluding VAT, VAT per rate, the total including VAT, due date, bank account and KID. 404 for an invoice the key cannot act for, as for one that does not exist.',
        params: Type.Object({
          invoicenr: Type.Integer({ minimum: 1, maximum: INT32_MAX, description: 'The invoice number.' }),
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
      const document = await invoicing.document(request.account, request.params.invoicenr);
      const { invoice, seller } = document;
      // An issued invoice never changes, nor do its lines: the invoice and the seller tag the
      // document, checked before anything is read or drawn.
      const etag = contentTag(JSON.stringify({ invoice, seller }));
      if (answeredNotModified(request, reply, etag)) return reply;
      const body = new PassThrough();
      renderInvoicePdf(document, body).catch((err: unknown) => {
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
          'Issues a credit note (a new invoice number, negative amounts) for the named shipments of an invoice, or for all those not credited yet. The invoice itself never changes.',
        body: CreditNoteRequest,
        response: { 201: CreditNoteResponse, ...problemResponses(400), ...authErrors },
      },
    },
    async (request, reply) => reply.code(201).send(await invoicing.creditNote(request.body)),
  );
};
