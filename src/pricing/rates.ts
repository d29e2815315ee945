import currencyCodes from 'currency-codes';
import { type Static, Type } from 'typebox';
import { Violations } from '../lib/errors';
import { parseScaled } from '../lib/units';
import { isDate } from '../schedule/calendar';
import { VALID_FROM_RULE } from './tariff';

/**
 * An exchange-rate table: units of each currency per 1 EUR (the ECB reference-rate convention), in
 * force from `ValidFrom` until the next table. The format of `data/exchange-rates/*.json` and of
 * `PUT /admin/exchange-rates`.
 */
export const ExchangeRateTableSchema = Type.Object(
  {
    ValidFrom: Type.String({
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
      'x-error': 'A date is written YYYY-MM-DD.',
    }),
    Base: Type.Literal('EUR'),
    Source: Type.Optional(Type.String({ maxLength: 300 })),
    Rates: Type.Record(
      Type.String({ pattern: '^[A-Z]{3}$' }),
      Type.String({
        pattern: '^[0-9]{1,6}(\\.[0-9]{1,6})?$',
        'x-error': 'A rate is a decimal string with at most 6 decimals, such as "11.7135".',
      }),
    ),
  },
  { additionalProperties: false },
);

export type ExchangeRateTable = Static<typeof ExchangeRateTableSchema>;

export interface CompiledRates {
  validFrom: string;
  /** Currency → units per EUR × 10⁶. */
  micro: Map<string, number>;
  /** Currency → the rate as written. */
  text: Map<string, string>;
}

/** True for a current ISO 4217 currency code. */
export const isCurrency = (code: string) => currencyCodes.code(code) !== undefined;

export function assertRateRules(table: ExchangeRateTable): void {
  const v = new Violations();
  v.check('ValidFrom', isDate(table.ValidFrom), VALID_FROM_RULE);
  v.check('Rates', Object.keys(table.Rates).length > 0, 'The table holds no rate.');
  // Kolli prices and invoices in NOK: a table in force without it would refuse every price abroad
  // in NOK and leave invoices without their euro rate, for good.
  v.check('Rates.NOK', table.Rates.NOK !== undefined, 'The table must hold the NOK rate.');
  // The base is EUR: its own rate is 1 by definition, and another would be dropped, not used.
  if (table.Rates.EUR !== undefined) {
    v.check(
      'Rates.EUR',
      parseScaled(table.Rates.EUR, 6) === 1_000_000,
      'The EUR rate of a EUR-based table is 1.',
    );
  }
  for (const [currency, rate] of Object.entries(table.Rates)) {
    v.check(`Rates.${currency}`, isCurrency(currency), `${currency} is not an ISO 4217 currency code.`);
    v.check(`Rates.${currency}`, (parseScaled(rate, 6) ?? 0) > 0, 'A rate must be greater than 0.');
  }
  v.throwIfAny();
}

export function compileRates(table: ExchangeRateTable): CompiledRates {
  const entries = Object.entries(table.Rates).filter(([c]) => c !== 'EUR');
  return {
    validFrom: table.ValidFrom,
    micro: new Map([
      ['EUR', 1_000_000],
      ...entries.map(([c, r]) => [c, parseScaled(r, 6) ?? 0] as [string, number]),
    ]),
    text: new Map([['EUR', '1'], ...entries]),
  };
}
