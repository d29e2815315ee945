/**
 * KID (kundeidentifikasjon), the Norwegian payment reference: digits followed by a MOD10 (Luhn)
 * check digit. Pure functions, no framework.
 */

/** The MOD10 (Luhn) check digit of a digit string: weights 2 and 1 alternate from the rightmost digit. */
export function mod10CheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = (digits.charCodeAt(digits.length - 1 - i) - 48) * (i % 2 === 0 ? 2 : 1);
    if (d > 9) d -= 9;
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** The KID of an invoice: its number followed by the MOD10 check digit. */
export const kidOf = (invoiceNr: number | bigint): string => {
  const body = String(invoiceNr);
  return `${body}${mod10CheckDigit(body)}`;
};

/** True when the KID's last digit is the MOD10 check digit of the rest (2–25 digits in all). */
export const isKid = (kid: string): boolean =>
  /^\d{2,25}$/.test(kid) && mod10CheckDigit(kid.slice(0, -1)) === Number(kid[kid.length - 1]);
