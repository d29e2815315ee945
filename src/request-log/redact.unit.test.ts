import { afterEach, describe, expect, test, vi } from 'vitest';
import { runFreshModule } from '../../test/processes';
import { MAX_JSON_DEPTH } from '../http/json-body';
import { storedBody } from './redact';

const store = (body: unknown, contentType = 'application/json') => storedBody(body, contentType, [], 16_384);

afterEach(() => vi.restoreAllMocks());

describe('a body that is a JSON scalar', () => {
  test('is stored as its text, parsed at most once', () => {
    const parse = vi.spyOn(JSON, 'parse');
    expect(store(1)).toBe('1');
    expect(store(true)).toBe('true');
    expect(store(-0)).toBe('0');
    expect(store(Buffer.from('42'))).toBe('42');
    expect(store(Buffer.from('"Bearer abc.def"'))).toBe('"Bearer [redacted]"');
    expect(parse.mock.calls.length).toBeLessThanOrEqual(5);
  });

  // It used to parse `1` back into 1 and recurse until the stack ran out, then compile a regular
  // expression there: V8 aborts the process then ("RegExpCompiler Allocation failed"), so a client
  // posting `1` as JSON killed the server when the request log wrote its batch.
  test('leaves a fresh process alive', () => {
    const script = `import { storedBody } from '${new URL('./redact.ts', import.meta.url).href}';
      process.stdout.write(String(storedBody(1, 'application/json', [], 1000)));`;
    expect(runFreshModule(script)).toBe('1');
  });
});

describe('JSON text inside a string value', () => {
  test('has its secrets redacted', () => {
    const stored = store({
      settings: JSON.stringify({ 'X-Api-Key': 'k-4711', Note: 'Basic dXNlcjpw' }),
    });
    expect(JSON.parse(JSON.parse(stored ?? '').settings)).toEqual({
      'X-Api-Key': '[redacted]',
      Note: 'Basic [redacted]',
    });
  });

  test('a webhook’s custom headers keep their names and lose every value, whatever the name', () => {
    const headers = {
      'Ocp-Apim-Subscription-Key': 'SUBKEYVAL2',
      'X-Auth': 'XAUTHVAL3',
      Accept: 'text/plain',
    };
    const asText = JSON.parse(store({ customHeaders: JSON.stringify(headers) }) ?? '');
    expect(JSON.parse(asText.customHeaders)).toEqual({
      'Ocp-Apim-Subscription-Key': '[redacted]',
      'X-Auth': '[redacted]',
      Accept: '[redacted]',
    });
    // Any case of the name, as an object too (a response's record), and null stays null.
    const asObject = JSON.parse(store([{ CustomHeaders: headers }, { customHeaders: null }]) ?? '');
    expect(asObject).toEqual([
      {
        CustomHeaders: {
          'Ocp-Apim-Subscription-Key': '[redacted]',
          'X-Auth': '[redacted]',
          Accept: '[redacted]',
        },
      },
      { customHeaders: null },
    ]);
    expect(store({ customHeaders: 'not json SUBKEYVAL2' })).toBe('{"customHeaders":"[redacted]"}');
  });

  test('is walked as part of the body, no deeper than a body may nest', () => {
    const deep = `${'{"a":'.repeat(10_000)}"Bearer abc"${'}'.repeat(10_000)}`;
    const stored = JSON.parse(store({ note: deep }) ?? '') as { note: string };
    let level: unknown = JSON.parse(stored.note);
    let depth = 0;
    while (typeof level === 'object' && level !== null) {
      level = (level as { a: unknown }).a;
      depth++;
    }
    expect(level).toBe(`[nested deeper than ${MAX_JSON_DEPTH} levels]`);
    expect(1 + depth).toBe(MAX_JSON_DEPTH); // the body's own object, then the text's
  });
});

describe('a problem answer', () => {
  test('keeps the messages of fields named like secrets, and redacts the rest as any body', () => {
    // Once `"customHeaders": "[redacted]"`: the request log hid why a registration was refused.
    const problem = {
      title: 'One or more validation errors occurred.',
      detail: 'Bearer abc.def was refused',
      token: 'tok-4711',
      errors: {
        customHeaders: ["The customHeaders name 'X Y' is not a valid HTTP header name."],
        secret: ['The secret field must not be empty.', 'Basic dXNlcjpw'],
      },
    };
    expect(
      JSON.parse(store(JSON.stringify(problem), 'application/problem+json; charset=utf-8') ?? ''),
    ).toEqual({
      title: 'One or more validation errors occurred.',
      detail: 'Bearer [redacted] was refused',
      token: '[redacted]',
      errors: {
        customHeaders: ["The customHeaders name 'X Y' is not a valid HTTP header name."],
        secret: ['The secret field must not be empty.', 'Basic [redacted]'],
      },
    });
    // Any other answer's `errors` is a body like another.
    expect(JSON.parse(store({ errors: { secret: 's3cr3t' } }) ?? '')).toEqual({
      errors: { secret: '[redacted]' },
    });
  });
});
