/** The spec's `int` (a .NET `Int32`): the largest id or number a client of the original can send. */
export const INT32_MAX = 2_147_483_647;

/** Digits of a whole number from 0 to `INT32_MAX` (leading zeros allowed, as `01000`). */
export const isInt32Text = (text: string): boolean => /^\d{1,10}$/.test(text) && Number(text) <= INT32_MAX;
