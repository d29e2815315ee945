/**
 * MOD11 check digits of Norwegian organisation numbers (9 digits, Brønnøysundregistrene) and bank
 * account numbers (11 digits). Weights run 2, 3, 4, 5, 6, 7 from the rightmost digit before the check
 * digit, repeating; remainder 0 gives check digit 0, remainder 1 has no check digit (never issued).
 */
function mod11CheckDigit(body: string): number | null {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += (body.charCodeAt(body.length - 1 - i) - 48) * (2 + (i % 6));
  const check = 11 - (sum % 11);
  if (check === 11) return 0;
  return check === 10 ? null : check;
}

const validMod11 = (digits: string) =>
  mod11CheckDigit(digits.slice(0, -1)) === Number(digits[digits.length - 1]);

/** A Norwegian organisation number: 9 digits, the last a MOD11 check digit. */
export const isOrgNr = (text: string): boolean => /^\d{9}$/.test(text) && validMod11(text);

/** A Norwegian bank account number: 11 digits (dots and spaces allowed), the last a MOD11 check digit. */
export const isBankAccount = (text: string): boolean => {
  const digits = text.replace(/[. ]/g, '');
  return /^\d{11}$/.test(digits) && validMod11(digits);
};

/** `921000006` → `921 000 006`, as organisation numbers are printed. */
export const formatOrgNr = (orgNr: string): string => orgNr.replace(/^(\d{3})(\d{3})(\d{3})$/, '$1 $2 $3');

/** `12345678903` → `1234.56.78903`, as account numbers are printed in Norway. */
export const formatBankAccount = (account: string): string =>
  account.replace(/[. ]/g, '').replace(/^(\d{4})(\d{2})(\d{5})$/, '$1.$2.$3');
