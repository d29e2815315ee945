/** What went wrong, independent of HTTP; `http/problem.ts` maps each kind to a status. */
export type DomainErrorKind =
  | 'validation'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'precondition_failed'
  | 'unprocessable';

/** An expected failure of a domain rule. `code` is stable and machine-readable (`shipment_published`). */
export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    /** When the same request may succeed later: answered as `Retry-After`. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** One or more violated field rules, keyed by the request's field names (`Parcels[3].Weight`). */
export class ValidationFailed extends DomainError {
  constructor(readonly errors: Record<string, string[]>) {
    super('validation', 'validation_failed', 'One or more validation errors occurred.');
  }
}

/**
 * Collects every violated rule of a request so all are reported together, not only the first.
 * `check(field, ok, message)` records the message when `ok` is false.
 */
export class Violations {
  private readonly errors: Record<string, string[]> = {};

  /** A collector that starts with a copy of another's violations. */
  constructor(from?: Violations) {
    if (from) for (const [k, list] of Object.entries(from.errors)) this.errors[k] = [...list];
  }

  /** True when the field already has a violation. */
  has(field: string): boolean {
    return field in this.errors;
  }

  add(field: string, message: string): void {
    const list = this.errors[field];
    if (list) {
      if (!list.includes(message)) list.push(message);
    } else {
      this.errors[field] = [message];
    }
  }

  check(field: string, ok: boolean, message: string): boolean {
    if (!ok) this.add(field, message);
    return ok;
  }

  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  /** The violations so far, keyed by field name. */
  toRecord(): Record<string, string[]> {
    return Object.fromEntries(Object.entries(this.errors).map(([k, list]) => [k, [...list]]));
  }

  /** Throws a `ValidationFailed` when any rule was violated. */
  throwIfAny(): void {
    if (!this.empty) throw new ValidationFailed({ ...this.errors });
  }
}

/** True when `field` is `parent` or lies inside it (`Parcels[3].Weight` inside `Parcels[3]` and `Parcels`). */
export const fieldWithin = (field: string, parent: string) =>
  field === parent || field.startsWith(`${parent}.`) || field.startsWith(`${parent}[`);

export const notFound = (what: string) => new DomainError('not_found', 'not_found', `${what} was not found.`);
export const forbidden = (message: string) => new DomainError('forbidden', 'forbidden', message);
export const unauthorized = (message: string) => new DomainError('unauthorized', 'unauthorized', message);
