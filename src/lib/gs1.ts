/**
 * GS1 identifiers: the mod-10 check digit, GSIN shipment numbers (17 digits) and SSCC parcel numbers
 * (18 digits). Pure functions, no framework.
 */

/** The GS1 check digit of a digit string: weights 3 and 1 alternate from the rightmost digit. */
export function gs1CheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const d = digits.charCodeAt(digits.length - 1 - i) - 48;
    sum += d * (i % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10;
}

const hasValidCheckDigit = (id: string) => gs1CheckDigit(id.slice(0, -1)) === Number(id[id.length - 1]);

/** A GSIN: 17 digits whose last is the check digit of the first 16. */
export const isGsin = (id: string) => /^\d{17}$/.test(id) && hasValidCheckDigit(id);

/** An SSCC: 18 digits whose last is the check digit of the first 17. */
export const isSscc = (id: string) => /^\d{18}$/.test(id) && hasValidCheckDigit(id);

function build(body: string, length: number): string {
  if (body.length !== length - 1) throw new RangeError(`serial does not fit: ${body}`);
  return `${body}${gs1CheckDigit(body)}`;
}

/** GSIN = company prefix + shipper reference (the serial, zero-padded) + check digit. */
export function gsin(companyPrefix: string, serial: bigint | number): string {
  const width = 16 - companyPrefix.length;
  return build(`${companyPrefix}${String(serial).padStart(width, '0')}`, 17);
}

/** SSCC = extension digit + company prefix + serial reference (zero-padded) + check digit. */
export function sscc(companyPrefix: string, serial: bigint | number, extension = 0): string {
  const width = 16 - companyPrefix.length;
  return build(`${extension}${companyPrefix}${String(serial).padStart(width, '0')}`, 18);
}
