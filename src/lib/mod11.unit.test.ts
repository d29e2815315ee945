import { describe, expect, test } from 'vitest';
import { formatBankAccount, formatOrgNr, isBankAccount, isOrgNr } from './mod11';

describe('MOD11', () => {
  test('organisation numbers: the check digit decides', () => {
    expect(isOrgNr('921000006')).toBe(true);
    expect(isOrgNr('999999999')).toBe(true);
    expect(isOrgNr('974760673')).toBe(true); // Brønnøysundregistrene's own
    expect(isOrgNr('921000007')).toBe(false);
    expect(isOrgNr('92100000')).toBe(false);
    expect(isOrgNr('92100000x')).toBe(false);
    // Remainder 1 would need check digit 10: no such number exists.
    expect(isOrgNr('912345670')).toBe(false);
  });

  test('bank account numbers: 11 digits, dots and spaces allowed', () => {
    expect(isBankAccount('12345678903')).toBe(true);
    expect(isBankAccount('1234.56.78903')).toBe(true);
    expect(isBankAccount('1234 56 78903')).toBe(true);
    expect(isBankAccount('12345678904')).toBe(false);
    expect(isBankAccount('1234567890')).toBe(false);
  });

  test('printed forms', () => {
    expect(formatOrgNr('921000006')).toBe('921 000 006');
    expect(formatBankAccount('12345678903')).toBe('1234.56.78903');
    expect(formatBankAccount('1234 56 78903')).toBe('1234.56.78903');
  });
});
