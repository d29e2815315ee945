import { expect, test } from 'vitest';
import { securityHeaders } from './security-headers';

test("helmet's headers for the configuration, computed once", () => {
  const headers = securityHeaders({
    contentSecurityPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-site' },
  });
  expect(headers).toMatchObject({
    'cross-origin-resource-policy': 'same-site',
    'strict-transport-security': 'max-age=31536000; includeSubDomains',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'SAMEORIGIN',
    'referrer-policy': 'no-referrer',
  });
  expect(headers).not.toHaveProperty('content-security-policy');
  expect(Object.isFrozen(headers)).toBe(true);
});
