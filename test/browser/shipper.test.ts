import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osloBergenBooking } from '../factories';
import { ADMIN_KEY, bearer, invoiceUpTo } from '../helpers';
import {
  expectAccessible,
  expectFocusRingVisible,
  hasChromium,
  openPortal,
  type Portal,
  screenshot,
  signIn,
} from './browser';

describe.skipIf(!hasChromium)('portal: the shipper’s path', () => {
  let p: Portal;
  let key: string;
  beforeAll(async () => {
    p = await openPortal();
    key = await p.ctx.keyFor({
      customerNrs: ['1000'],
      scopes: ['booking', 'price', 'invoice', 'shipments', 'labels', 'webhooks'],
    });
  });
  afterAll(() => p?.close());

  test('book with a validation error corrected, label, timeline after the sandbox moves it, invoice', async () => {
    const { page, base } = p;
    await signIn(page, base, key);
    await expectAccessible(page, 'book');
    // The page's icon is served (a browser asks for one on every page; a 404 was console noise).
    const icon = await page.locator('link[rel=icon]').getAttribute('href');
    const served = await fetch(`${base}${icon}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^image\/svg\+xml/);

    await page.getByLabel('Firma').first().fill('Demo Kunde AS');
    await page.getByLabel('Adresse').first().fill('Karl Johans gate 1');
    await page.getByLabel('Postnummer').first().fill('0154');
    await expect.poll(() => page.getByLabel('Poststed').first().inputValue()).toBe('OSLO');
    // The recipient's company is left out: the 400 names it, shown beside its field.
    await page.getByLabel('Adresse').nth(1).fill('Bryggen 1');
    await page.getByLabel('Postnummer').nth(1).fill('5003');
    await expect.poll(() => page.getByLabel('Poststed').nth(1).inputValue()).toBe('BERGEN');
    await page.getByLabel('Vekt (kg)').fill('12,5');
    await page.getByTestId('quote-total').waitFor();
    expect(await page.getByTestId('quote-total').textContent()).toMatch(/kr/);
    // A weight cleared takes the price away with it; given again, the price comes back.
    const weight = page.getByLabel('Vekt (kg)').first();
    const kilos = await weight.inputValue();
    await weight.fill('');
    await page.getByTestId('quote-total').waitFor({ state: 'detached' });
    await weight.fill(kilos);
    await page.getByTestId('quote-total').waitFor();
    await expect.poll(() => page.locator('#quote').textContent()).toContain('tidligst levert');
    await screenshot(page, 'book');

    await page.getByRole('button', { name: 'Book' }).click();
    const company = page.getByLabel('Firma').nth(1);
    await expect.poll(() => company.getAttribute('aria-invalid')).toBe('true');
    const message = await page.locator(`#${await company.getAttribute('id')}-error`).textContent();
    expect(message).toContain('RecipientCompanyName');
    await screenshot(page, 'book-error');
    await expectAccessible(page, 'book with errors');

    await company.fill('Fjord Frakt AS');
    await page.getByRole('button', { name: 'Book' }).click();
    await page.getByRole('heading', { name: /^Sending \d{17}$/ }).waitFor();
    const shipmentId =
      (await page.getByRole('heading', { level: 1 }).textContent())?.replace('Sending ', '') ?? '';
    // Not invoiced yet: the price frozen when it was booked.
    await expect.poll(() => page.getByTestId('price').textContent()).toMatch(/kr.*booket pris/);

    // The label: PDF downloaded, ZPL previewed.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Last ned PDF' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`kolli-${shipmentId}.pdf`);
    const pdfPath = await download.path();
    expect(readFileSync(pdfPath).subarray(0, 5).toString()).toBe('%PDF-');
    await page.getByRole('button', { name: 'Vis ZPL' }).click();
    expect(await page.getByTestId('zpl').textContent()).toMatch(/^\^XA/);

    // The sandbox moves it on: picked up, at the terminal, out for delivery, delivered.
    const advance = page.getByRole('button', { name: /Flytt videre/ });
    const timeline = page.getByRole('list', { name: 'Statushistorikk' });
    expect(await page.getByTestId('status').textContent()).toBe('Booket');
    for (const step of ['Hentet', 'Ankommet terminal', 'Ute for levering', 'Levert']) {
      // The whole shipment is read again: a pickup scan moves its pickup date (once left stale).
      const reread = page.waitForRequest((r) => /\/v2\/Shipment\/\d+$/.test(r.url()) && r.method() === 'GET');
      await advance.click();
      await reread;
      await expect.poll(() => timeline.textContent()).toContain(step);
      // The status is the latest scan's.
      await expect.poll(() => page.getByTestId('status').textContent()).toBe(step);
    }
    await screenshot(page, 'shipment');
    await expectAccessible(page, 'shipment');

    // Find it again by id and in the list.
    await page.getByRole('link', { name: 'Sendinger' }).click();
    await page.getByLabel('Hentepostnummer').fill('0154');
    await page.getByRole('button', { name: 'Søk' }).click();
    await page.getByRole('link', { name: shipmentId }).waitFor();
    await expectAccessible(page, 'shipments');

    // The carrier invoices (administrator), the shipper sees the invoice with its lines.
    const run = await p.ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/runs',
      headers: bearer(ADMIN_KEY),
      payload: { ToDate: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10) },
    });
    expect(run.statusCode, run.body).toBe(201);
    const invoiceNr = String(run.json().Invoices[0].InvoiceNr);
    await page.getByRole('link', { name: 'Fakturaer' }).click();
    await page.getByRole('link', { name: invoiceNr }).click();
    await page.getByRole('heading', { name: `Faktura ${invoiceNr}` }).waitFor();
    // One line per cost of the shipment (freight, additions), each naming it.
    await page.getByRole('link', { name: shipmentId }).first().waitFor();
    expect(await page.getByTestId('invoice-net').textContent()).toMatch(/kr/);
    // The VAT rate as a percentage under a Norwegian head, not as money under the field's name.
    await page.getByRole('columnheader', { name: 'Mva-sats' }).waitFor();
    expect(await page.getByRole('cell', { name: /^25 %$/ }).count()).toBeGreaterThan(0);
    expect(await page.getByRole('cell', { name: /^25,00 kr$/ }).count()).toBe(0);
    const [invoicePdf] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Last ned PDF' }).click(),
    ]);
    expect(invoicePdf.suggestedFilename()).toBe(`faktura-${invoiceNr}.pdf`);
    await screenshot(page, 'invoice');
    await expectAccessible(page, 'invoice');
  }, 180_000);

  test('a lost answer booked once, service lines named, the skip link, a draft’s page', async () => {
    const { page, base } = p;
    await page.evaluate('sessionStorage.clear()');
    await signIn(page, base, key);
    // The skip link moves the focus to the page and leaves the page as it is (a half-filled form too).
    await page.getByLabel('Firma').first().fill('Kun Én Gang AS');
    const hash = new URL(page.url()).hash;
    await page.locator('a.skip').focus();
    await page.keyboard.press('Enter');
    expect(new URL(page.url()).hash).toBe(hash);
    expect(await page.evaluate('document.activeElement?.id')).toBe('main');
    expect(await page.getByLabel('Firma').first().inputValue()).toBe('Kun Én Gang AS');

    await page.getByLabel('Adresse').first().fill('Karl Johans gate 1');
    await page.getByLabel('Postnummer').first().fill('0154');
    await expect.poll(() => page.getByLabel('Poststed').first().inputValue()).toBe('OSLO');
    await page.getByLabel('Firma').nth(1).fill('Fjord Frakt AS');
    await page.getByLabel('Adresse').nth(1).fill('Bryggen 1');
    await page.getByLabel('Postnummer').nth(1).fill('5003');
    await expect.poll(() => page.getByLabel('Poststed').nth(1).inputValue()).toBe('BERGEN');
    await page.getByLabel('Vekt (kg)').fill('12,5');
    await page.getByLabel('Tail lift').check();
    // Only what the form can complete is offered: no pickup-point product, no service needing a date.
    expect(await page.locator('select[name=ProductCode] option[value=PP]').count()).toBe(0);
    expect(await page.getByLabel('Fix Day').count()).toBe(0);
    // The service's line names it and its price, as the calculator answers them.
    await expect.poll(() => page.locator('#quote').textContent()).toMatch(/Tail lift: [\d\s]+,\d\d\s?kr/);
    expect(await page.locator('#quote').textContent()).not.toContain('undefined');

    // The first answer is lost on the way back (the booking was made); Book again replays it.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const booked = async () => {
      const res = await p.ctx.app.inject({
        url: `/v1/shipment/list?customerid=1000&postalcode=0154&pickupFromDate=${day(-2)}&pickupToDate=${day(20)}`,
        headers: bearer(key),
      });
      expect(res.statusCode, res.body).toBe(200);
      return new Set((res.json() as { ShipmentId: string }[]).map((r) => r.ShipmentId)).size;
    };
    const before = await booked();
    let lost = false;
    await page.route('**/Shipment/Update', async (route) => {
      if (lost) return route.continue();
      lost = true;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.getByRole('button', { name: 'Book' }).click();
    await expect.poll(() => page.locator('form').textContent()).toContain('Fikk ikke svar');
    await page.getByRole('button', { name: 'Book' }).click();
    await page.getByRole('heading', { name: /^Sending \d{17}$/ }).waitFor();
    await page.unroute('**/Shipment/Update');
    expect(await booked()).toBe(before + 1);

    // A draft has no pickup date yet: its page says what it would cost if published now.
    const draft = await p.ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: bearer(key),
      payload: { ...osloBergenBooking(), ShipmentStatus: 'Draft' },
    });
    expect(draft.statusCode, draft.body).toBe(201);
    await page.goto(`${base}/portal/#/shipment/${draft.json().ShipmentId}`);
    await expect.poll(() => page.getByTestId('price').textContent()).toMatch(/kr.*ikke booket ennå/);
  }, 120_000);

  test('a credited shipment is shown credited, with its invoice and its credit note', async () => {
    const { page, base } = p;
    const booked = await p.ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: bearer(key),
      payload: osloBergenBooking(),
    });
    expect(booked.statusCode, booked.body).toBe(201);
    const id = booked.json().ShipmentId as string;
    const pickedUp = await p.ctx.app.inject({
      method: 'POST',
      url: `/sandbox/shipments/${id}/advance`,
      headers: bearer(key),
    });
    expect(pickedUp.statusCode, pickedUp.body).toBe(200);
    const run = await invoiceUpTo(p.ctx, new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10));
    const invoiceNr = (run.json().Invoices as { InvoiceNr: number; CustomerNr: string }[]).find(
      (i) => i.CustomerNr === '1000',
    )?.InvoiceNr;
    const credit = await p.ctx.app.inject({
      method: 'POST',
      url: '/admin/invoicing/credit-notes',
      headers: bearer(ADMIN_KEY),
      payload: { InvoiceNr: invoiceNr, ShipmentIds: [id], Reason: 'Booked by mistake' },
    });
    expect(credit.statusCode, credit.body).toBe(201);
    const creditNr = credit.json().InvoiceNr as number;

    // Signed out, on the portal's origin (a test run alone starts on about:blank).
    await page.goto(`${base}/portal/`);
    await page.evaluate('sessionStorage.clear()');
    await signIn(page, base, key);
    await page.goto(`${base}/portal/#/shipment/${id}`);
    const price = page.getByTestId('price');
    // Once only the invoice was shown: "Fakturert: 462,51 kr" for a shipment credited in full.
    await expect.poll(() => price.textContent()).toContain('Kreditert');
    expect(await price.textContent()).toMatch(/Fakturert: [\d\s]+,\d\d\s?kr eks\. mva, faktura \d+/);
    expect(await price.textContent()).toMatch(/Kreditert: −[\d\s]+,\d\d\s?kr eks\. mva, kreditnota \d+/);
    await price.getByRole('link', { name: String(invoiceNr), exact: true }).waitFor();
    await price.getByRole('link', { name: String(creditNr), exact: true }).waitFor();
    await expectAccessible(page, 'a credited shipment');
  }, 120_000);

  test('the keyboard focus ring stands out from what it is drawn on', async () => {
    const { page, base } = p;
    // Signed out, on the portal's origin (a test run alone starts on about:blank).
    await page.goto(`${base}/portal/`);
    await page.evaluate('sessionStorage.clear()');
    await page.reload();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.className')).toBe('skip');
    await expectFocusRingVisible(page, 'the skip link, over the blue header');
    await page.getByLabel('Kundenummer').focus();
    await expectFocusRingVisible(page, 'a field of the grey sign-in panel');
    await signIn(page, base, key);
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('main');
    await page.keyboard.press('Tab');
    await expectFocusRingVisible(page, 'the first field of the booking form, on white');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Logg ut');
    await expectFocusRingVisible(page, 'the sign-out button on the header');
  }, 60_000);

  test('a B2C product books a private recipient by first and last name', async () => {
    // Once every booking was sent as to a company, so a private recipient could not be booked.
    const { page, base } = p;
    await page.evaluate('sessionStorage.clear()');
    await signIn(page, base, key);
    await page.getByLabel('Produkt', { exact: true }).selectOption('HE');
    expect(await page.getByLabel('Mottakertype').inputValue()).toBe('Private');
    expect(await page.getByLabel('Firma').nth(1).isVisible()).toBe(false);
    await page.getByLabel('Firma').first().fill('Demo Kunde AS');
    await page.getByLabel('Adresse').first().fill('Karl Johans gate 1');
    await page.getByLabel('Postnummer').first().fill('0154');
    await page.getByLabel('Fornavn').fill('Kari');
    await page.getByLabel('Etternavn').fill('Nordmann');
    await page.getByLabel('Adresse').nth(1).fill('Bryggen 1');
    await page.getByLabel('Postnummer').nth(1).fill('5003');
    await expect.poll(() => page.getByLabel('Poststed').nth(1).inputValue()).toBe('BERGEN');
    await page.getByLabel('Vekt (kg)').fill('5');
    await page.getByTestId('quote-total').waitFor();
    await page.getByRole('button', { name: 'Book' }).click();
    await page.getByRole('heading', { name: /^Sending \d{17}$/ }).waitFor();
    const id = (await page.getByRole('heading', { level: 1 }).textContent())?.replace('Sending ', '');
    const [record] = (await p.ctx.app.inject({ url: `/v2/Shipment/${id}`, headers: bearer(key) })).json() as {
      DeliveryType: number;
      Addresses: { AddressTypeId: number; FirstName: string; LastName: string }[];
    }[];
    expect(record?.DeliveryType).toBe(0);
    expect(record?.Addresses.find((a) => a.AddressTypeId === 2)).toMatchObject({
      FirstName: 'Kari',
      LastName: 'Nordmann',
    });
    await expectAccessible(page, 'book to a private recipient');
  }, 120_000);
});
