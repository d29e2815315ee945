import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osloBergenBooking } from '../factories';
import { ADMIN_KEY, bearer, json } from '../helpers';
import { expectAccessible, hasChromium, openPortal, type Portal, screenshot, signIn } from './browser';

const SCOPES = ['booking', 'price', 'invoice', 'shipments', 'labels', 'webhooks'] as const;

describe.skipIf(!hasChromium)('portal: the integrator’s path and tenancy', () => {
  let p: Portal;
  let target: Server;
  let targetUrl: string;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  let keyId: string;
  let key: string;
  /** A booking sent by the integration with key `k` (Oslo to Bergen, as changed by `over`). */
  const book = (k: string, over: Record<string, unknown> = {}) =>
    p.ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: bearer(k),
      payload: osloBergenBooking(over),
    });

  beforeAll(async () => {
    p = await openPortal();
    target = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        // A target that is gone says so: Kolli disables its registration.
        res.writeHead(req.url?.endsWith('/gone') ? 410 : 204).end();
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/kolli-hook`;
    await p.ctx.keyFor({ customerNrs: ['1000'], scopes: [...SCOPES] }); // creates customer 1000
    const created = await p.ctx.services.auth.createKey({
      name: 'integration',
      customerNrs: ['1000'],
      scopes: [...SCOPES],
    });
    keyId = created.Id;
    key = created.Key;
  });
  afterAll(async () => {
    await p?.close();
    target?.close();
  });

  test('the API reference at /docs loads nothing from outside this server (a sandbox runs offline)', async () => {
    const { page, base } = p;
    const outside: string[] = [];
    const watch = (request: { url(): string }) => {
      const url = request.url();
      if (!url.startsWith(base) && !/^(data|blob|about):/.test(url)) outside.push(url);
    };
    page.on('request', watch);
    try {
      await page.goto(`${base}/docs`, { waitUntil: 'networkidle' });
      await page.getByText('Kolli — parcel shipping service').first().waitFor();
    } finally {
      page.off('request', watch);
    }
    expect(outside).toEqual([]);
  });

  test('webhook created, test-fired and its delivery seen; a refused request found in the request log', async () => {
    const { page, base } = p;
    // Through the OAuth token flow: key id and key give an access token.
    await signIn(page, base, key, '1000', keyId);

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Ny webhook' }).click();
    await page.getByLabel('Adresse (URL)').fill(targetUrl);
    await page.getByRole('button', { name: 'Opprett' }).click();
    await page.getByRole('cell', { name: targetUrl }).waitFor();
    await expectAccessible(page, 'webhooks');

    await page.getByRole('button', { name: 'Send test' }).click();
    const delivery = page.locator('details.delivery').first();
    await delivery.waitFor();
    expect(await delivery.locator('summary').textContent()).toContain('levert');
    await delivery.locator('summary').click();
    expect(received).toHaveLength(1);
    // The signature the page shows is the one the target received.
    const sent = received[0]?.headers['webhook-signature'];
    expect(sent).toMatch(/^v1,/);
    expect(await delivery.textContent()).toContain(String(sent));
    expect(await delivery.textContent()).toContain('webhook.test');
    await screenshot(page, 'webhooks');
    await expectAccessible(page, 'webhook deliveries');

    // The integration sends a booking the API refuses.
    expect((await book(key, { RecipientZip: '99999' })).statusCode).toBe(400);
    await book(key);

    await page.getByRole('link', { name: 'Forespørsler' }).click();
    await page.getByLabel('Status').selectOption('4xx');
    await page.getByLabel('Sti inneholder').fill('Shipment/Update');
    await page.getByRole('button', { name: 'Filtrer' }).click();
    const entries = page.locator('details.request');
    await expect.poll(() => entries.count()).toBe(1);
    const entry = entries.first();
    await entry.locator('summary').click();
    expect(await entry.locator('summary').textContent()).toContain('400 POST /Shipment/Update');
    expect(await entry.locator('pre.response').textContent()).toContain('RecipientZip');
    const curl = (await entry.locator('pre.curl').textContent()) ?? '';
    expect(curl).toContain(`curl -X POST '${base}/Shipment/Update'`);
    expect(curl).toContain('-H "Authorization: Bearer $KOLLI_API_KEY"'); // the shell expands it
    expect(curl).not.toContain(key);
    await screenshot(page, 'request-log');
    // The webhook's registration: its secret was never stored, and the command says so.
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Sti inneholder').fill('Webhooks');
    await page.getByRole('button', { name: 'Filtrer' }).click();
    const registration = page
      .locator('details.request')
      .filter({ has: page.locator('summary', { hasText: /POST \/v1\/Webhooks ·/ }) });
    await registration.first().locator('summary').click();
    expect(await registration.first().locator('pre.curl').textContent()).toMatch(
      /^# Fyll inn verdiene som er lagret som \[redacted\]/,
    );
    await page
      .getByRole('button', { name: 'Kopier som curl: POST /v1/Webhooks', exact: true })
      .first()
      .waitFor();
    await expectAccessible(page, 'request log');

    // On a phone: nothing wider than the screen, still accessible, a long query string included.
    const long = `/v1/shipment/list?postalcode=0154&customerid=1000&pickupFromDate=2026-11-01T00:00:00&pickupToDate=2026-11-30T23:59:59&${'x'.repeat(120)}=1`;
    await p.ctx.app.inject({ url: long, headers: { authorization: `Bearer ${key}` } });
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Sti inneholder').fill('shipment/list');
    await page.getByRole('button', { name: 'Filtrer' }).click();
    await expect.poll(() => entries.count()).toBeGreaterThan(0);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await expectAccessible(page, 'request log on a phone');
    await page.setViewportSize({ width: 1100, height: 800 });

    await page.getByRole('link', { name: 'API-nøkler' }).click();
    await page.getByRole('cell', { name: keyId }).waitFor();
    await expectAccessible(page, 'API keys');
    // A customer's key never asked for the administrator's key list: no refusal in its own log.
    await p.ctx.services.requestLog.flush();
    const asked = await p.ctx.app.inject({
      url: '/v1/RequestLog?Path=admin',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(asked.json().Entries).toEqual([]);
  }, 180_000);

  test('a key without a scope is told so, not that the shipment or its invoice is missing', async () => {
    const { page, base } = p;
    const full = await p.ctx.keyFor({ customerNrs: ['1000'], scopes: [...SCOPES] });
    const booked = await book(full);
    expect(booked.statusCode, booked.body).toBe(201);
    const id = booked.json().ShipmentId as string;
    // Booking and shipments, no invoices: the booked price is shown without "not invoiced yet".
    await page.evaluate('sessionStorage.clear()');
    await signIn(
      page,
      base,
      await p.ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking', 'shipments', 'price'] }),
    );
    await page.goto(`${base}/portal/#/shipment/${id}`);
    await page.getByText('denne nøkkelen har ikke tilgang til fakturaer').waitFor();
    expect(await page.getByTestId('price').textContent()).not.toContain('ikke fakturert ennå');
    // Booking alone: the shipment page says the key may not read shipments.
    await page.evaluate('sessionStorage.clear()');
    await signIn(page, base, await p.ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking'] }));
    await page.goto(`${base}/portal/#/shipment/${id}`);
    await page.getByText('Denne nøkkelen har ikke tilgang til å lese sendinger').waitFor();
  }, 120_000);

  test("another customer's shipment, webhook and requests stay invisible", async () => {
    const { page, base } = p;
    const other = await p.ctx.keyFor({ customerNrs: ['2000'], scopes: [...SCOPES] });
    const booked = await book(other, { CustomerId: '2000', SenderReference: 'other-customer-secret-ref' });
    expect(booked.statusCode, booked.body).toBe(201);
    const hook = await p.ctx.app.inject({
      method: 'POST',
      url: '/v1/Webhooks',
      headers: bearer(other),
      payload: {
        eventValue: '2000',
        eventValueType: 3,
        url: `${targetUrl}/other-customer`,
        secret: 'other-secret',
      },
    });
    expect(hook.statusCode, hook.body).toBe(200);
    const otherShipment = booked.json().ShipmentId as string;

    await page.evaluate('sessionStorage.clear()');
    await signIn(page, base, key, '1000');
    await page.goto(`${base}/portal/#/shipment/${otherShipment}`);
    await page.getByText(`Fant ingen sending ${otherShipment}`).waitFor();
    expect(await page.content()).not.toContain('other-customer-secret-ref');

    await page.goto(`${base}/portal/#/webhooks`);
    await page.getByRole('cell', { name: targetUrl, exact: true }).waitFor();
    expect(await page.content()).not.toContain('other-customer');

    await page.goto(`${base}/portal/#/requests`);
    await page.locator('details.request').first().waitFor();
    // Customer 1000's own attempt to read the id is its request; customer 2000's booking is not there.
    const log = await page.locator('main').textContent();
    expect(log).toContain(`404 GET /v2/Shipment/${otherShipment}`);
    expect(log).not.toMatch(new RegExp(`"ShipmentId":\\s*"${otherShipment}"`));
    expect(await page.content()).not.toContain('other-customer-secret-ref');

    // Signing in for a customer the key may not act for is refused.
    await page.evaluate('sessionStorage.clear()');
    await page.goto(`${base}/portal/`);
    await page.getByLabel('Kundenummer').fill('2000');
    await page.getByLabel('API-nøkkel').fill(key);
    await page.getByRole('button', { name: 'Logg inn' }).click();
    await page.getByText('Nøkkelen kan ikke handle for dette kundenummeret.').first().waitFor();
    // Said under the customer number, the field it is about.
    expect(await page.getByLabel('Kundenummer').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('API-nøkkel').getAttribute('aria-invalid')).toBeNull();
    await screenshot(page, 'sign-in');
    await expectAccessible(page, 'sign-in');
  }, 120_000);

  test("a disabled webhook's refused test is said, and its delivery log fits a phone", async () => {
    const { page, base } = p;
    const gone = `${targetUrl}/gone`;
    const created = await p.ctx.app.inject({
      method: 'POST',
      url: '/v1/Webhooks',
      headers: bearer(key),
      payload: { eventValue: '1000', eventValueType: 3, url: gone, secret: 'gone-secret' },
    });
    expect(created.statusCode, created.body).toBe(200);
    // The target answers 410 Gone: the registration is disabled, so a second test is a 409.
    const first = await p.ctx.app.inject({
      method: 'POST',
      url: `/v1/Webhooks/${created.json().uuid}/test`,
      headers: bearer(key),
    });
    expect(first.json().statusCode).toBe(410);

    const unhandled: string[] = [];
    const collect = (error: Error) => unhandled.push(error.message);
    page.on('pageerror', collect);
    try {
      // Signed out, on the portal's origin (a test run alone starts on about:blank).
      await page.goto(`${base}/portal/`);
      await page.evaluate('sessionStorage.clear()');
      await signIn(page, base, key);
      await page.goto(`${base}/portal/#/webhooks`);
      const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: gone, exact: true }) });
      await row.getByRole('button', { name: 'Send test' }).click();
      // Once nothing was shown: the 409 was an unhandled rejection.
      await page.getByRole('alert').filter({ hasText: 'The webhook was disabled' }).waitFor();
      expect(unhandled).toEqual([]);
      await expectAccessible(page, 'a refused webhook test');

      // The delivery log, its signature a long word, on a narrow phone: nothing wider than the screen.
      await row.getByRole('button', { name: 'Leveranser' }).click();
      const delivery = page.locator('details.delivery').first();
      await delivery.locator('summary').click();
      await delivery.getByText('webhook-signature:').waitFor();
      await page.setViewportSize({ width: 320, height: 700 });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320);
    } finally {
      page.off('pageerror', collect);
      await page.setViewportSize({ width: 1100, height: 800 });
    }
  }, 120_000);

  test("the administrator's keys page lists every key, a page of 100 at a time", async () => {
    const { page, base } = p;
    for (let i = 0; i < 101; i++) {
      await p.ctx.services.auth.createKey({ name: `butikk ${i}`, customerNrs: ['1000'], scopes: ['price'] });
    }
    const total = json<unknown[]>(
      await p.ctx.app.inject({ url: '/admin/api-keys?Limit=1000', headers: bearer(ADMIN_KEY) }),
    ).length;
    await page.evaluate('sessionStorage.clear()');
    await signIn(page, base, ADMIN_KEY);
    await page.getByRole('link', { name: 'API-nøkler' }).click();
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(100);
    await page.getByRole('button', { name: 'Flere' }).click();
    await expect.poll(() => rows.count()).toBe(total);
    expect(await page.getByRole('button', { name: 'Flere' }).isHidden()).toBe(true);
    await expectAccessible(page, 'API keys of the administrator');
  }, 120_000);
});
