/**
 * A value now, or a promise of it when it must wait (a cache miss). The price path answers from
 * memory on almost every request: returning the value itself spares it the promises and microtask
 * turns of an async chain, which cost more than the quote.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `f(value)` at once when `value` is ready, else when it is. */
export function andThen<T, U>(value: MaybePromise<T>, f: (ready: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}
