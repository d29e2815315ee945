import { expect, test } from 'vitest';
import { buildSerializer } from './serializers';

const route = (schema: object) => ({ method: 'GET', url: '/x', httpStatus: '200', schema });
const Shipment = { type: 'object', properties: { Id: { type: 'string' }, Weight: { type: 'number' } } };
const problem = { Problem: { $id: 'Problem', type: 'object', properties: { title: { type: 'string' } } } };

test('a schema is compiled once per process for the same shared schemas, and serialises as its schema says', () => {
  const first = buildSerializer(problem)(route(Shipment));
  const again = buildSerializer(structuredClone(problem))(route(Shipment));
  expect(again).toBe(first);
  expect(first({ Id: 'a', Weight: 2.5, Extra: true })).toBe('{"Id":"a","Weight":2.5}');
  // Another schema, even with equal content, is its own serialiser.
  expect(buildSerializer(problem)(route({ ...Shipment }))).not.toBe(first);
});

test('other shared schemas get their own serialiser, and options are never cached', () => {
  const first = buildSerializer(problem)(route(Shipment));
  const otherShared = { Problem: { ...problem.Problem, properties: { detail: { type: 'string' } } } };
  expect(buildSerializer(otherShared)(route(Shipment))).not.toBe(first);
  const withOptions = buildSerializer(problem, { rounding: 'floor' });
  expect(withOptions(route(Shipment))).not.toBe(withOptions(route(Shipment)));
});
