import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { rulesOf } from '../http/domain-rules';
import { authErrors, problemResponses } from '../http/schemas';
import { createCalculator } from './calculator';
import { ExchangeRateTableSchema } from './rates';
import {
  type EuropePriceQuery,
  EuropePriceQuerySchema,
  EuropePriceResultSchema,
  ExchangeRateSummarySchema,
  type PriceRequestV2,
  PriceRequestV2Schema,
  type PriceRequestV3,
  PriceRequestV3Schema,
  PriceResultV2Schema,
  PriceResultV3Schema,
  TariffSummarySchema,
} from './schemas';
import type { PricingService } from './service';
import { TariffDocumentSchema } from './tariff';

const ValidFromParams = Type.Object({
  validFrom: Type.String({
    pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
    'x-error': 'A date is written YYYY-MM-DD.',
  }),
});

export const pricingRoutes: FastifyPluginAsyncTypebox<{ pricing: PricingService }> = async (
  app,
  { pricing },
) => {
  const calculator = createCalculator(pricing);
  const price = { scope: 'price' as const };
  // The domestic price handlers are not async: a price whose context is in the caches is answered
  // at once, a promise only when a cache must load (lib/maybe-promise.ts).
  // The GET prices are pure functions of the URL, the key and the data in force (http/answer-cache.ts).
  const priceQuery = { ...price, answerCache: true };
  // A request the schema refused is still priced on the rest, so that its 400 names every broken
  // rule (CONTRACT §4; http/domain-rules.ts). A required text the schema refused reads as empty, whose
  // own violation is then left out beside the schema's; the calculator leaves out a rule that spans a
  // refused field (the measures, the payer).
  const judged = <Q>(
    schema: { required?: string[] },
    operation: (request: FastifyRequest, q: Q, refused: ReadonlySet<string>) => unknown,
  ) => {
    const blanks = Object.fromEntries((schema.required ?? []).map((name) => [name, '']));
    return rulesOf<Partial<Q>>((q, request, refused) =>
      operation(request, { ...blanks, ...q } as Q, refused),
    );
  };
  const v2Rules = judged(PriceRequestV2Schema, (r, q: PriceRequestV2, refused) =>
    calculator.v2(r.account, q, refused),
  );
  const admin = { scope: 'admin' as const };
  const tags = ['Price'];
  const v2 = {
    tags,
    response: { 200: PriceResultV2Schema, ...problemResponses(400), ...authErrors },
  };

  app.post(
    '/v2/PriceCalculator',
    {
      config: { ...price, domainRules: v2Rules },
      schema: {
        ...v2,
        summary: 'Domestic price (v2)',
        description:
          'Prices a domestic shipment on the tariff in force on `pickup_date`. At least one of `volume_d3`, `weight`, `number_of_load_meters`, `number_of_pallet_spaces` must be given. Amounts are NOK excluding VAT.',
        body: PriceRequestV2Schema,
      },
    },
    (request) => calculator.v2(request.account, request.body),
  );

  app.get(
    '/v2/PriceCalculator',
    {
      config: { ...priceQuery, queryRules: v2Rules },
      schema: {
        ...v2,
        summary: 'Domestic price (v2, query parameters)',
        description:
          'The same as `POST /v2/PriceCalculator` with the body’s names as query parameters; `service` repeats (`?service=16&service=35`); parcels as `parcels[0].weight=12&parcels[0].length=60…`.',
        querystring: PriceRequestV2Schema,
      },
    },
    (request) => calculator.v2(request.account, request.query),
  );

  app.get(
    '/v3/Calculate/',
    {
      config: {
        ...priceQuery,
        queryRules: judged(PriceRequestV3Schema, (r, q: PriceRequestV3, refused) =>
          calculator.v3(r.account, q, refused),
        ),
      },
      schema: {
        tags,
        summary: 'Domestic price (v3)',
        description:
          'Prices a domestic shipment. `VolumeD3` and `Weight` at most 99999. `PaymentCode` `M`/`F` prices on the agreement of `PayerCustomerNr`, which the key must be able to act for. Amounts are NOK excluding VAT.',
        querystring: PriceRequestV3Schema,
        response: { 200: PriceResultV3Schema, ...problemResponses(400), ...authErrors },
      },
    },
    (request) => calculator.v3(request.account, request.query),
  );

  app.get(
    '/v2/europe/price',
    {
      config: {
        ...priceQuery,
        queryRules: judged(EuropePriceQuerySchema, (r, q: EuropePriceQuery) =>
          calculator.europe(r.account, q),
        ),
      },
      schema: {
        tags,
        summary: 'International price',
        description:
          'Prices an international shipment by country zone and chargeable weight (m³ × 333 kg) on the EUR tariff, converted to `Currency` with the exchange rates in force. When no price exists the answer is 200 with `Error` set and the price fields null.',
        querystring: EuropePriceQuerySchema,
        response: { 200: EuropePriceResultSchema, ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => calculator.europe(request.account, request.query),
  );

  const adminTags = ['Administration'];
  app.put(
    '/admin/tariffs',
    {
      config: admin,
      schema: {
        tags: adminTags,
        summary: 'Load a tariff version',
        description:
          'Validates a tariff document (docs/tariffs.md) and loads it; a version with the same `ValidFrom` is replaced. A broken tariff is rejected whole with a 400 naming every broken field.',
        body: TariffDocumentSchema,
        response: { 200: TariffSummarySchema, ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => pricing.putTariff(request.body),
  );

  app.get(
    '/admin/tariffs',
    {
      config: admin,
      schema: {
        tags: adminTags,
        summary: 'List the tariff versions',
        response: { 200: Type.Array(TariffSummarySchema), ...authErrors },
      },
    },
    async () => pricing.listTariffs(),
  );

  app.get(
    '/admin/tariffs/:validFrom',
    {
      config: admin,
      schema: {
        tags: adminTags,
        summary: 'Read a tariff version as loaded',
        params: ValidFromParams,
        response: { 200: TariffDocumentSchema, ...problemResponses(400, 404), ...authErrors },
      },
    },
    async (request) => pricing.getTariff(request.params.validFrom),
  );

  app.delete(
    '/admin/tariffs/:validFrom',
    {
      config: admin,
      schema: {
        tags: adminTags,
        summary: 'Withdraw a tariff version',
        description:
          'Removes a version (for example a future one loaded by mistake); the last version stays.',
        params: ValidFromParams,
        response: { 204: Type.Null(), ...problemResponses(400, 404, 409), ...authErrors },
      },
    },
    async (request, reply) => {
      await pricing.deleteTariff(request.params.validFrom);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/admin/exchange-rates',
    {
      config: admin,
      schema: {
        tags: adminTags,
        summary: 'Load an exchange-rate table',
        description:
          'Units of each currency per 1 EUR, in force from `ValidFrom` until the next table; a table with the same `ValidFrom` is replaced.',
        body: ExchangeRateTableSchema,
        response: { 200: ExchangeRateSummarySchema, ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => pricing.putExchangeRates(request.body),
  );

  app.get(
    '/admin/exchange-rates',
    {
      config: admin,
      schema: {
        tags: adminTags,
        summary: 'List the exchange-rate tables',
        response: { 200: Type.Array(ExchangeRateSummarySchema), ...authErrors },
      },
    },
    async () => pricing.listExchangeRates(),
  );
};
