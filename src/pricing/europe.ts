import countries from 'i18n-iso-countries';
import { type Account, assertCanActFor } from '../auth/access';
import { ValidationFailed, Violations } from '../lib/errors';
import { formatAmount, parseKgAsGrams, parseM3AsCm3 } from '../lib/units';
import { categoryOf, type Terms } from './engine';
import { serviceCodes } from './quote';
import { isCurrency } from './rates';
import type { EuropePriceQuery, EuropePriceResult } from './schemas';
import { type PricingService, pickupDateOf } from './service';

/** `GET /v2/europe/price` on top of `pricing.quote`: the spec's wire names and decimal strings. */

const checkCountry = (v: Violations, field: string, code: string) =>
  v.check(field, countries.isValid(code), `${code} is not an ISO 3166-1 alpha-2 country code.`);

export function createEuropeCalculator(
  pricing: Pick<PricingService, 'quote' | 'today' | 'customerByPriceServiceId' | 'postalCodeExists'>,
) {
  return async function europe(account: Account, q: EuropePriceQuery): Promise<EuropePriceResult> {
    const v = new Violations();
    const owner = await pricing.customerByPriceServiceId(q.CustomerId);
    if (!owner)
      throw new ValidationFailed({ CustomerId: [`Price-service id ${q.CustomerId} does not exist.`] });
    assertCanActFor(account, owner.customerNr);

    const origin = q.OriginCountry.toUpperCase();
    const destination = q.DestinationCountry.toUpperCase();
    const originOk = checkCountry(v, 'OriginCountry', origin);
    const destinationOk = checkCountry(v, 'DestinationCountry', destination);
    for (const [field, country, zip] of [
      ['OriginPostalCode', origin, q.OriginPostalCode.trim()],
      ['DestinationPostalCode', destination, q.DestinationPostalCode.trim()],
    ] as const) {
      if (country === 'NO') {
        if (v.check(field, /^\d{4}$/.test(zip), 'A Norwegian postal code is 4 digits.')) {
          v.check(
            field,
            await pricing.postalCodeExists(zip),
            `Postal code ${zip} is not in the postal register.`,
          );
        }
      } else {
        v.check(field, /^[A-Za-z0-9][A-Za-z0-9 -]{0,9}$/.test(zip), 'The postal code is not valid.');
      }
    }

    const grams = parseKgAsGrams(q.Weight.trim().replace(',', '.'));
    v.check(
      'Weight',
      grams !== null,
      'The Weight field must be a number of kg with at most 3 decimals, such as "12.5".',
    );
    v.check('Weight', grams === null || grams > 0, 'The Weight field must be greater than 0.');
    const cm3 = q.Volume === undefined ? 0 : parseM3AsCm3(q.Volume.trim().replace(',', '.'));
    v.check(
      'Volume',
      cm3 !== null,
      'The Volume field must be a number of m³ with at most 6 decimals, such as "0.25".',
    );

    const currency = q.Currency.toUpperCase();
    v.check('Currency', isCurrency(currency), `${currency} is not an ISO 4217 currency code.`);
    const category = q.ShipmentCategory.trim().toLowerCase();
    if (
      v.check(
        'ShipmentCategory',
        category === 'import' || category === 'export' || category === 'domestic',
        'The ShipmentCategory field must be import, export or domestic.',
      ) &&
      originOk &&
      destinationOk
    ) {
      const implied = categoryOf(origin, destination);
      v.check(
        'ShipmentCategory',
        implied === null || implied === category,
        `ShipmentCategory ${category} contradicts the countries (${origin} to ${destination} is ${implied}).`,
      );
    }
    const terms = q.Terms.trim().toUpperCase();
    v.check(
      'Terms',
      terms === 'EXW' || terms === 'CPT' || terms === 'DDU' || terms === 'DDP',
      'The Terms field must be EXW, CPT, DDU or DDP.',
    );

    const pickupDate = pickupDateOf(q.PickupDate, 'PickupDate', pricing.today(), v);

    const result = await pricing.quote({
      kind: 'international',
      payerCustomerNr: owner.customerNr,
      productCode: q.ProductCode.toUpperCase(),
      originCountry: origin,
      destinationCountry: destination,
      pickupDate,
      // Valid or not, the quote still runs so every violated rule is reported together.
      weightGrams: grams && grams > 0 ? grams : 1,
      volumeCm3: cm3 ?? 0,
      dangerousGoods: q.IsDangerousGoods ?? false,
      services: serviceCodes(q.Services),
      terms: terms as Terms,
      currency,
    });
    if (result.ok === false) {
      for (const [field, messages] of Object.entries(result.errors)) {
        const service = /^services\[(\d+)\]$/.exec(field);
        const names: Record<string, string> = {
          productCode: 'ProductCode',
          customerNr: 'CustomerId',
          weight: 'Weight',
          volume: 'Volume',
          pickupDate: q.PickupDate === undefined ? 'request' : 'PickupDate',
        };
        for (const m of messages ?? [])
          v.add(service ? `Services[${service[1]}]` : (names[field] ?? field), m);
      }
    }
    v.throwIfAny();
    if (result.ok === 'noprice') {
      return {
        Currency: currency,
        Total: null,
        Details: { FreightPrice: null, OtherCosts: null, OtherCostsDetails: null },
        Error: { Code: result.noPrice.code, Description: result.noPrice.description },
      };
    }
    if (result.ok !== true || result.kind !== 'international')
      throw new Error('an international quote was expected');
    const quote = result.quote;
    return {
      Currency: quote.currency,
      Total: formatAmount(quote.total),
      Details: {
        FreightPrice: formatAmount(quote.freight.amount),
        OtherCosts: formatAmount(quote.otherCosts),
        OtherCostsDetails: quote.otherLines.map((l) => ({
          Code: l.code,
          Description: l.description,
          Amount: formatAmount(l.amount),
        })),
      },
      Error: null,
    };
  };
}
