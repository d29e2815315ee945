import { describe, expect, test } from 'vitest';
import { runFreshModule } from '../../test/processes';
import { bodyAjv, fieldName, textAjv, validationErrors } from './validation';

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

  test('a member a strict object does not declare is named as sent, even empty or digits', () => {
    const validate = bodyAjv.compile({
      type: 'object',
      additionalProperties: false,
      properties: { A: { type: 'object', additionalProperties: false, properties: {} } },
    });
    validate({ '': 1, '0': 2, Lines: [], A: { B: 1 } });
    const not = (name: string) => `The ${name} field is not one this request takes (a misspelt name?).`;
    expect(validationErrors(validate.errors ?? [], 'body')).toEqual({
      '""': [not('""')],
      '0': [not('0')],
      Lines: [not('Lines')],
      'A.B': [not('B')],
    });
  });

  test('a query parameter given twice where one value belongs is told so, a union too', () => {
    const validate = textAjv.compile({
      type: 'object',
      properties: {
        N: { type: 'integer' },
        U: {
          anyOf: [{ type: 'integer' }, { type: 'string', enum: ['Private'] }],
          'x-error': 'U is 0 or Private.',
        },
      },
    });
    validate({ N: ['1', '2'], U: ['0', 'Private'] });
    expect(validationErrors(validate.errors ?? [], 'querystring')).toEqual({
      N: ['The N field is given more than once; it takes one value.'],
      U: ['The U field is given more than once; it takes one value.'],
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

describe("the routes' validators", () => {
  // V8 keeps at most 1 536 transitions off the empty object's hidden class; past that, objects that
  // gain their properties one by one (Node's request.headers) each get a class of their own, and
  // every property read of them misses its cache. Compiling the routes must leave room. Checked in a
  // fresh process, where nothing else has used the transitions up, and with an old space large
  // enough that the heap's growth sets off no full collection after the validators compile: one
  // would clear their dead transitions and hide the fault.
  test('leave objects built property by property sharing their hidden class', { timeout: 90_000 }, () => {
    const script = `
      const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)');
      let n = 0;
      const shared = () => {
        const name = 'fresh_' + n++;
        const a = {}; a[name] = 1;
        const b = {}; b[name] = 1;
        return sameMap(a, b);
      };
      const { buildApp } = await import('${new URL('../app.ts', import.meta.url).href}');
      const { loadConfig } = await import('${new URL('../config.ts', import.meta.url).href}');
      const { openDatabase } = await import('${new URL('../db/client.ts', import.meta.url).href}');
      const before = shared();
      const config = loadConfig({ LOG_LEVEL: 'silent' });
      const database = await openDatabase({ url: null, dataDir: null });
      const app = await buildApp({ config, database });
      await app.ready();
      process.stdout.write(JSON.stringify({ before, after: shared() }));
      await app.close();
      await database.close();`;
    const out = runFreshModule(script, ['--allow-natives-syntax', '--initial-old-space-size=1024']);
    expect(JSON.parse(out)).toEqual({ before: true, after: true });
  });
});
