import { andThen, type MaybePromise } from '../lib/maybe-promise';
import {
  type DomesticContext,
  type DomesticQuote,
  type Errors,
  type InternationalContext,
  type InternationalQuote,
  type NoPrice,
  type ParcelMeasures,
  priceDomestic,
  priceInternational,
  type Terms,
} from './engine';

/**
 * The quote: a request in the engine's terms, its context resolved (through the caches), priced by
 * the engine. The calculators and booking all price through it.
 */

/**
 * A request's service codes as the engine reads them (upper case). An element the schema refused,
 * kept in its place as `{}` when the rules are judged beside the refusal (http/domain-rules.ts),
 * reads as no code: its violation is left out beside the schema's, and the others keep their index.
 */
export const serviceCodes = (list: readonly unknown[] | undefined): string[] =>
  (list ?? []).map((s) => (typeof s === 'string' ? s.toUpperCase() : ''));

/** A domestic price request in the engine's terms (grams, cm³, cm); the calculators and booking build one. */
export interface DomesticQuoteRequest {
  kind: 'domestic';
  customerNr: string;
  /** Whose agreement prices the shipment (the customer itself unless another party pays). */
  payerCustomerNr: string;
  productCode: string;
  fromZip: string;
  toZip: string;
  /** `YYYY-MM-DD`: picks the tariff in force. */
  pickupDate: string;
  deliveryType: 0 | 1;
  services: string[];
  unitCode?: string;
  numberOfUnits?: number;
  weightGrams?: number;
  volumeCm3?: number;
  loadMeters?: number;
  palletSpaces?: number;
  parcels?: ParcelMeasures[];
}

export interface InternationalQuoteRequest {
  kind: 'international';
  payerCustomerNr: string;
  productCode: string;
  originCountry: string;
  destinationCountry: string;
  pickupDate: string;
  weightGrams: number;
  volumeCm3: number;
  dangerousGoods: boolean;
  services: string[];
  terms: Terms;
  currency: string;
}

export type QuoteRequest = DomesticQuoteRequest | InternationalQuoteRequest;

/**
 * Logical names of what a quote can complain about beyond the engine's fields; each caller renames
 * them to its wire names (`customer_nr`, `Customernr`, `CustomerId`).
 */
export type QuoteErrors = Errors & Partial<Record<'customerNr' | 'currency', string[]>>;

export type QuoteResult =
  | { ok: true; kind: 'domestic'; quote: DomesticQuote }
  | { ok: true; kind: 'international'; quote: InternationalQuote }
  | { ok: false; errors: QuoteErrors }
  | { ok: 'noprice'; noPrice: NoPrice };

/** A resolved context, or the complaints that kept it from resolving. */
export type Resolved<C> = { ok: true; ctx: C } | { ok: false; errors: QuoteErrors };

/** What a quote reads besides its measures: the context of a domestic or an international request. */
export interface Resolver {
  resolveDomestic(
    req: Pick<
      DomesticQuoteRequest,
      'customerNr' | 'payerCustomerNr' | 'productCode' | 'fromZip' | 'toZip' | 'pickupDate' | 'services'
    >,
  ): MaybePromise<Resolved<DomesticContext>>;
  resolveInternational(
    req: Pick<InternationalQuoteRequest, 'payerCustomerNr' | 'productCode' | 'pickupDate' | 'currency'>,
  ): Promise<Resolved<InternationalContext>>;
}

const quoteDomesticWith = (ctx: DomesticContext, req: DomesticQuoteRequest): QuoteResult => {
  const result = priceDomestic(
    {
      weightGrams: req.weightGrams,
      volumeCm3: req.volumeCm3,
      loadMeters: req.loadMeters,
      palletSpaces: req.palletSpaces,
      unitCode: req.unitCode,
      numberOfUnits: req.numberOfUnits,
      parcels: req.parcels,
      services: req.services,
      deliveryType: req.deliveryType,
      senderZip: req.fromZip,
      receiverZip: req.toZip,
    },
    ctx,
  );
  return result.ok ? { ok: true, kind: 'domestic', quote: result.value } : result;
};

const quoteInternationalWith = (ctx: InternationalContext, req: InternationalQuoteRequest): QuoteResult => {
  const result = priceInternational(
    {
      originCountry: req.originCountry,
      destinationCountry: req.destinationCountry,
      weightGrams: req.weightGrams,
      volumeCm3: req.volumeCm3,
      dangerousGoods: req.dangerousGoods,
      services: req.services,
      terms: req.terms,
    },
    ctx,
  );
  return result.ok === true ? { ok: true, kind: 'international', quote: result.value } : result;
};

/** `prepare` and `quote` on top of a resolver. */
export function createQuote({ resolveDomestic, resolveInternational }: Resolver) {
  /**
   * Resolves, with the caches, everything `quote` needs for a request except its measures, and
   * returns a synchronous quote for that context. Booking prepares before its transaction and
   * prices inside it, so no lookup runs while the transaction holds the (PGlite) connection.
   */
  function prepare(req: QuoteRequest): MaybePromise<Resolved<(measures: QuoteRequest) => QuoteResult>> {
    if (req.kind === 'domestic') {
      return andThen(resolveDomestic(req), (resolved) => {
        if (!resolved.ok) return resolved;
        return {
          ok: true,
          ctx: (m: QuoteRequest) => {
            if (m.kind !== 'domestic') throw new Error('a domestic request was prepared');
            return quoteDomesticWith(resolved.ctx, m);
          },
        };
      });
    }
    return andThen(resolveInternational(req), (resolved) => {
      if (!resolved.ok) return resolved;
      return {
        ok: true,
        ctx: (m: QuoteRequest) => {
          if (m.kind !== 'international') throw new Error('an international request was prepared');
          return quoteInternationalWith(resolved.ctx, m);
        },
      };
    });
  }

  /**
   * The one price function: the calculators and booking all price through it, so a booked shipment
   * costs what the calculator quoted for the same inputs (CONTRACT §6). At once when the caches hold
   * the request's context.
   */
  function quote(req: QuoteRequest): MaybePromise<QuoteResult> {
    if (req.kind === 'domestic') {
      return andThen(resolveDomestic(req), (resolved) =>
        resolved.ok ? quoteDomesticWith(resolved.ctx, req) : resolved,
      );
    }
    return andThen(prepare(req), (prepared) => (prepared.ok ? prepared.ctx(req) : prepared));
  }

  return { prepare, quote };
}
