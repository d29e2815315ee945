import { expect, test } from 'vitest';
import { redactSecrets } from './logging';

test('secret names are redacted at the top and two levels down in plain objects, without changing the object', () => {
  const logged = {
    secret: 'S1',
    webhook: { url: 'https://h.example', secret: 'S2' },
    req: { headers: { authorization: 'Bearer T', accept: 'application/json' } },
    token: { access_token: 'T2', expires_in: 3600 },
    customer: { Key: 'K1', Name: 'Kunde AS' },
    form: { client_secret: 'C1', password: 'P1' },
  };
  const copy = structuredClone(logged);
  const out = redactSecrets(logged);
  expect(out).toEqual({
    secret: '[redacted]',
    webhook: { url: 'https://h.example', secret: '[redacted]' },
    req: { headers: { authorization: '[redacted]', accept: 'application/json' } },
    token: { access_token: '[redacted]', expires_in: 3600 },
    customer: { Key: '[redacted]', Name: 'Kunde AS' },
    form: { client_secret: '[redacted]', password: '[redacted]' },
  });
  expect(logged).toEqual(copy);
});

test('an object without secrets is passed through as is; objects that are not plain are left to their serializers', () => {
  const err = Object.assign(new Error('x'), { secret: 'kept for serializeError to drop' });
  const clean = { job: 'invoice', tick: 3, err };
  expect(redactSecrets(clean)).toBe(clean);
});
