import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestContext } from '../../test/helpers';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await buildTestApp();
});
afterAll(() => ctx.close());

test('the portal is served without a key, under its own CSP, and nothing outside its folder', async () => {
  const redirect = await ctx.app.inject({ url: '/portal' });
  expect(redirect.statusCode).toBe(302);
  expect(redirect.headers.location).toBe('/portal/');

  const page = await ctx.app.inject({ url: '/portal/' });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.headers['content-security-policy']).toContain("script-src 'self'");
  expect(page.body).toContain('/portal/app.js');

  const script = await ctx.app.inject({ url: '/portal/pages/book.js' });
  expect(script.statusCode).toBe(200);
  expect(script.headers['content-type']).toMatch(/javascript/);

  for (const url of ['/portal/../package.json', '/portal/%2e%2e/package.json', '/portal/nothing.js']) {
    expect((await ctx.app.inject({ url })).statusCode, url).toBe(404);
  }
  // API answers keep the API's policy.
  const api = await ctx.app.inject({ url: '/v1/products' });
  expect(api.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
});
