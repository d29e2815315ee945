/**
 * A number as text (its JSON form) without V8's number-string cache. `${n}`, `'' + n` and String(n)
 * keep the text of every number that is not a small integer (a fraction, a time in ms) in that cache,
 * an old-generation table, so under load each such text outlives two young collections, is promoted,
 * and is left as garbage for the next full collection: ~1 MB a second on the price route before this
 * (bench/README.md, 2026-11-27 afternoon). JSON.stringify writes the same digits into a new string.
 * NaN and ±Infinity give `null`, as in JSON.
 */
export const numberText = (n: number): string => JSON.stringify(n);
