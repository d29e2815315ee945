/**
 * The tariff engine: pure functions from resolved facts (tariff, product, services, agreement,
 * terminals) to priced cost lines. No I/O, no clock, no exceptions: every input either gives a quote
 * or a list of violated rules keyed by logical field names, which the service renames to the
 * caller's wire names.
 *
 * This module is the engine's public surface; the work is in `domestic.ts`, `international.ts` and
 * what both share, `measures.ts`.
 */

export {
  type DomesticContext,
  type DomesticQuote,
  type DomesticRequest,
  type ParcelMeasures,
  priceDomestic,
  zoneBetween,
} from './domestic';
export {
  categoryOf,
  type InternationalContext,
  type InternationalQuote,
  type InternationalRequest,
  type InternationalResult,
  type NoPrice,
  priceInternational,
  type ShipmentCategory,
  type Terms,
} from './international';
export type {
  AgreementFacts,
  CostLine,
  Errors,
  Field,
  ParcelField,
  ProductFacts,
  Result,
  ServiceFacts,
} from './measures';
