import type { Violations } from '../lib/errors';
import type { Catalog, Product, ServiceDef } from './schemas';

/** The catalogue indexed for lookups; what the rule helpers check against. */
export interface CatalogSnapshot {
  readonly products: readonly Product[];
  readonly services: readonly ServiceDef[];
  readonly productByCode: ReadonlyMap<string, Product>;
  readonly serviceByCode: ReadonlyMap<string, ServiceDef>;
}

export function snapshotOf(catalog: Catalog): CatalogSnapshot {
  return {
    products: catalog.Products,
    services: catalog.Services,
    productByCode: new Map(catalog.Products.map((p) => [p.ProductCode, p])),
    serviceByCode: new Map(catalog.Services.map((s) => [s.ServiceCode, s])),
  };
}

/** One field a used service requires. */
export interface RequiredField {
  field: string;
  serviceCode: string;
  serviceName: string;
}

/**
 * Checks the service codes of a booking or price request against the product: each must be known
 * and allowed for the product. Violations are keyed `${field}[i]` (e.g. `Services[1]`, `service[0]`).
 * Returns the definitions of the valid codes, in request order (for pricing).
 */
export function checkServices(
  snapshot: CatalogSnapshot,
  product: Product,
  serviceCodes: readonly string[],
  violations: Violations,
  field = 'Services',
): ServiceDef[] {
  const valid: ServiceDef[] = [];
  serviceCodes.forEach((code, i) => {
    const key = `${field}[${i}]`;
    const def = snapshot.serviceByCode.get(code);
    if (!def) {
      violations.add(key, `Service code ${code} does not exist.`);
    } else if (!product.Services.includes(code)) {
      violations.add(
        key,
        `Service ${code} (${def.Name}) is not available with product ${product.ProductCode}.`,
      );
    } else {
      valid.push(def);
    }
  });
  return valid;
}

/** The booking fields the given (known) services require, one entry per field and service. */
export function requiredFieldsFor(
  snapshot: CatalogSnapshot,
  serviceCodes: readonly string[],
): RequiredField[] {
  const out: RequiredField[] = [];
  for (const code of new Set(serviceCodes)) {
    const def = snapshot.serviceByCode.get(code);
    for (const f of def?.RequiredFields ?? [])
      out.push({ field: f, serviceCode: code, serviceName: def?.Name ?? code });
  }
  return out;
}

const present = (v: unknown) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');

/**
 * Reports each field a used service requires but the request left empty, keyed by the field name
 * (`RecipientPhone`): "The RecipientPhone field is required with service 15 (Pre-notice SMS)."
 * `values` maps booking request field names to the given values. Format checks (a valid e-mail
 * address, a valid date) stay with the caller.
 */
export function checkRequiredFields(
  snapshot: CatalogSnapshot,
  serviceCodes: readonly string[],
  values: Readonly<Record<string, unknown>>,
  violations: Violations,
): void {
  for (const r of requiredFieldsFor(snapshot, serviceCodes)) {
    violations.check(
      r.field,
      present(values[r.field]),
      `The ${r.field} field is required with service ${r.serviceCode} (${r.serviceName}).`,
    );
  }
}

/**
 * Semantic checks of a whole catalogue beyond its schema: unique codes, and every product's services
 * defined. Violations are keyed by path (`Products[2].Services[0]`).
 */
export function checkCatalog(catalog: Catalog, violations: Violations): void {
  const services = new Set<string>();
  catalog.Services.forEach((s, i) => {
    violations.check(
      `Services[${i}].ServiceCode`,
      !services.has(s.ServiceCode),
      `Service code ${s.ServiceCode} is listed twice.`,
    );
    services.add(s.ServiceCode);
  });
  const products = new Set<string>();
  catalog.Products.forEach((p, i) => {
    violations.check(
      `Products[${i}].ProductCode`,
      !products.has(p.ProductCode),
      `Product code ${p.ProductCode} is listed twice.`,
    );
    products.add(p.ProductCode);
    p.Services.forEach((code, j) => {
      violations.check(
        `Products[${i}].Services[${j}]`,
        services.has(code),
        `Service code ${code} is not in the catalogue's Services.`,
      );
    });
    violations.check(
      `Products[${i}].MaxShipmentWeightKg`,
      p.MaxShipmentWeightKg >= p.MaxParcelWeightKg,
      'The maximum shipment weight must be at least the maximum parcel weight.',
    );
    for (const w of ['PickupWindow', 'DeliveryWindow'] as const) {
      violations.check(`Products[${i}].${w}`, p[w].From < p[w].To, `${w}.From must be before ${w}.To.`);
    }
  });
}
