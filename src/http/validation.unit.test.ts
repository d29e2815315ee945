import { describe, expect, test } from 'vitest';
import { bodyAjv, fieldName, validationErrors } from './validation';

describe('fieldName', () => {
  test('JSON pointer segments become the spec’s dotted names with indexes', () => {
    expect(fieldName(['Parcels', '3', 'Weight'])).toBe('Parcels[3].Weight');
    expect(fieldName(['CustomsInformation', 'Lines', '0', 'HsCode'])).toBe(
      'CustomsInformation.Lines[0].HsCode',
    );
    expect(fieldName([])).toBe('');
  });
});

describe('validationErrors', () => {
  test('collects every violation, one key per field, and collapses unions', () => {
    const validate = bodyAjv.compile({
      type: 'object',
      required: ['A'],
      properties: {
        A: { type: 'string' },
        B: {
          type: 'array',
          items: { type: 'object', required: ['W'], properties: { W: { type: 'number', minimum: 0 } } },
        },
        C: {
          anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^[A-Z]+$' }],
          'x-error': 'C is a number or a name.',
        },
      },
    });
    validate({ B: [{ W: -1 }, {}], C: 'lower' });
    expect(validationErrors(validate.errors ?? [], 'body')).toEqual({
      A: ['The A field is required.'],
      'B[0].W': ['The W field must be at least 0.'],
      'B[1].W': ['The W field is required.'],
      C: ['C is a number or a name.'],
    });
  });

  test('a body that is not an object is reported on "request"', () => {
    const validate = bodyAjv.compile({ type: 'object' });
    validate([]);
    expect(validationErrors(validate.errors ?? [], 'body')).toEqual({
      request: ['The request body must be an object.'],
    });
  });
});
