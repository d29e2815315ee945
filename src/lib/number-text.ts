/**
 * A number as text (its JSON form) without V8's number-string cache. `${n}`, `'' + n`, String(n)
 * and Node's header code put a number's text into that cache, a table in the old generation, where
 * it stays until another number takes its slot. Under load that outlasts two young collections, so
 * the text of every new number (a time, a duration, a count) is promoted and left as garbage for the
 * next full collection: most of the price route's promoted garbage before this (bench/README.md,
 * 2026-11-27 afternoon). JSON.stringify writes the same digits into a string of its own.
 * NaN and ±Infinity give `null`, as in JSON.
 */
export const numberText = (n: number): string => JSON.stringify(n);
