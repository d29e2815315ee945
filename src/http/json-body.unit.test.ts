import { expect, test } from 'vitest';
import { quoteUnsafeIntegers, scanJson } from './json-body';

const scan = (text: string, limit = 64) => scanJson(Buffer.from(text), limit);

test('the scan counts nesting and long digit runs outside strings only', () => {
  expect(scan('{"a":[[1]]}', 2)).toEqual({ tooDeep: true, longNumber: false });
  expect(scan('{"a":"[[[["}', 2)).toEqual({ tooDeep: false, longNumber: false });
  expect(scan('{"id":"00370900010000000123"}')).toEqual({ tooDeep: false, longNumber: false });
  expect(scan('{"id":123456789012345}')).toEqual({ tooDeep: false, longNumber: false });
  expect(scan('{"id":1234567890123456}')).toEqual({ tooDeep: false, longNumber: true });
  // A short body is scanned too: it cannot be deep, but it can hold a long number.
  expect(scan('[70900019999999998]')).toEqual({ tooDeep: false, longNumber: true });
});

test('integers a double cannot hold become strings of their digits; everything else is left', () => {
  expect(quoteUnsafeIntegers('{"ShipmentId":70900019999999998,"n":[-90071992547409931]}')).toBe(
    '{"ShipmentId":"70900019999999998","n":["-90071992547409931"]}',
  );
  const untouched = [
    '{"a":9007199254740991,"b":-9007199254740991}',
    '{"w":1.23456789012345678,"e":1234567890123456e2}',
    '{"s":"70900019999999998","t":"say \\"70900019999999998\\""}',
    '{"broken":-}',
    // No JSON numbers: leading zeros, an object key. The parser refuses them as they are.
    '{"ShipmentId":070900019999999998}',
    '[-0012345678901234567]',
    '{12345678901234567890:1}',
    '{12345678901234567890 :1}',
  ];
  for (const text of untouched) expect(quoteUnsafeIntegers(text)).toBe(text);
});
