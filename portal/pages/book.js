// Book a shipment by hand: catalogue pickers, postal codes filling in places, a live quote and the
// delivery dates before Book, and each validation problem beside its field.
import { ApiError, api } from '../api.js';
import { field, h, setError } from '../dom.js';
import { day, kr } from '../format.js';

const debounce = (fn, ms) => {
  let t;
  return (...a) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...a), ms);
  };
};

const input = (name, attrs = {}) => h('input', { name, type: 'text', ...attrs });
const decimal = (v) => (v === '' ? undefined : Number(String(v).replace(',', '.')));

export async function bookPage(main, { session }) {
  const [products, services] = await Promise.all([api('/v1/products'), api('/v1/services')]);
  const serviceName = new Map(services.map((s) => [s.ServiceCode, s]));
  const c = {
    ProductCode: h(
      'select',
      { name: 'ProductCode' },
      // What this form can complete: no customs (international), no pickup point to choose.
      products
        .filter((p) => !p.International && !p.PickupPoints)
        .map((p) => h('option', { value: p.ProductCode }, `${p.Name} (${p.ProductCode})`)),
    ),
    PickupCompanyName: input('PickupCompanyName', { autocomplete: 'organization' }),
    PickupAddress: input('PickupAddress'),
    PickupZip: input('PickupZip', { inputmode: 'numeric', maxlength: 4 }),
    PickupPlace: input('PickupPlace'),
    // A private recipient (`DeliveryType` 0) is named by first and last name; B2C products default to one.
    DeliveryType: h(
      'select',
      { name: 'DeliveryType' },
      h('option', { value: 'Company' }, 'Bedrift'),
      h('option', { value: 'Private' }, 'Privatperson'),
    ),
    RecipientCompanyName: input('RecipientCompanyName'),
    RecipientFirstName: input('RecipientFirstName', { autocomplete: 'given-name' }),
    RecipientLastName: input('RecipientLastName', { autocomplete: 'family-name' }),
    RecipientAddress: input('RecipientAddress'),
    RecipientZip: input('RecipientZip', { inputmode: 'numeric', maxlength: 4 }),
    RecipientPlace: input('RecipientPlace'),
    RecipientPhone: input('RecipientPhone', { type: 'tel' }),
    RecipientEmail: input('RecipientEmail', { type: 'email' }),
    SenderReference: input('SenderReference'),
    Weight: input('Weight', { inputmode: 'decimal' }),
    Length: input('Length', { inputmode: 'numeric' }),
    Width: input('Width', { inputmode: 'numeric' }),
    Height: input('Height', { inputmode: 'numeric' }),
  };
  const serviceBox = h('div', { class: 'checks', role: 'group', 'aria-label': 'Tilleggstjenester' });
  const quote = h(
    'div',
    { class: 'panel', 'aria-live': 'polite', id: 'quote' },
    'Fyll inn postnumre og vekt for pris.',
  );
  const summary = h('div', { class: 'error', role: 'alert', id: 'book-errors' });
  const book = h('button', { type: 'submit' }, 'Book');

  const chosenServices = () => [...serviceBox.querySelectorAll('input:checked')].map((i) => i.value);
  const isPrivate = () => c.DeliveryType.value === 'Private';

  /** The recipient's name fields of the chosen type alone (a hidden field is not sent). */
  function drawRecipientType() {
    c.RecipientCompanyName.closest('.field').hidden = isPrivate();
    c.RecipientFirstName.closest('.field').hidden = !isPrivate();
    c.RecipientLastName.closest('.field').hidden = !isPrivate();
  }
  const productSegment = () => products.find((p) => p.ProductCode === c.ProductCode.value)?.Segment;

  function drawServices() {
    const product = products.find((p) => p.ProductCode === c.ProductCode.value);
    // A service needing a field the form has not (a delivery or pickup date, a pickup point) is not
    // offered: it could only be refused.
    const completable = (code) => (serviceName.get(code)?.RequiredFields ?? []).every((f) => f in c);
    serviceBox.replaceChildren(
      ...(product?.Services ?? [])
        .filter(completable)
        .map((code) =>
          h(
            'label',
            {},
            h('input', { type: 'checkbox', name: 'Services', value: code, onchange: refresh }),
            ` ${serviceName.get(code)?.Name ?? code}`,
          ),
        ),
    );
  }

  // The postal code fills in the place (and says so when it is unknown).
  for (const [zip, place] of [
    [c.PickupZip, c.PickupPlace],
    [c.RecipientZip, c.RecipientPlace],
  ]) {
    zip.addEventListener('input', async () => {
      setError(zip, null);
      if (!/^\d{4}$/.test(zip.value)) return;
      try {
        place.value = (await api(`/v1/postalcodes/${zip.value}`)).Place;
        setError(place, null);
        refresh();
      } catch {
        setError(zip, 'Ukjent postnummer.');
      }
    });
  }

  // Each quote asked is numbered: an answer to an older question never replaces a newer one's.
  let asked = 0;
  async function updateQuote() {
    const ask = ++asked;
    const from = c.PickupZip.value;
    const to = c.RecipientZip.value;
    const kg = decimal(c.Weight.value);
    if (!/^\d{4}$/.test(from) || !/^\d{4}$/.test(to) || !(kg > 0)) {
      // No question to ask: no price from an earlier one stays on show.
      quote.replaceChildren();
      return;
    }
    try {
      const parcel = {
        weight: kg,
        length: decimal(c.Length.value),
        width: decimal(c.Width.value),
        height: decimal(c.Height.value),
      };
      const [price, plan] = await Promise.all([
        api('/v2/PriceCalculator', {
          method: 'POST',
          body: {
            customer_nr: session.customerNr,
            sender_zip: from,
            receiver_zip: to,
            product_type: c.ProductCode.value,
            delivery_type: c.DeliveryType.value,
            weight: Math.ceil(kg),
            service: chosenServices(),
            parcels: [parcel],
          },
        }),
        api('/v1/schedule/deliverydates', {
          query: { productCode: c.ProductCode.value, fromZip: from, toZip: to },
        }),
      ]);
      if (ask !== asked) return;
      quote.replaceChildren(
        h('h2', {}, 'Pris og levering'),
        h('p', {}, 'Pris eks. mva: ', h('strong', { 'data-testid': 'quote-total' }, kr(price.Total))),
        h(
          'ul',
          {},
          price.Freight.Details.map((d) => h('li', {}, `${d.Description}: ${kr(d.Cost)}`)),
          price.Services.map((s) =>
            h('li', {}, `${s.ServiceDescription ?? s.CostTypeCode}: ${kr(s.ServiceCost)}`),
          ),
        ),
        h('p', {}, `Hentes ${day(plan.PickupDate)}, tidligst levert ${day(plan.EarliestDeliveryDate)}.`),
        h('p', {}, `Mulige leveringsdager: ${plan.DeliveryDates.map(day).join(', ')}`),
      );
    } catch (err) {
      if (ask === asked) quote.replaceChildren(h('p', {}, `Ingen pris: ${err.message}`));
    }
  }
  const refresh = debounce(updateQuote, 300);

  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'book-title' },
    h('h1', { id: 'book-title' }, 'Book sending'),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Produkt'),
      h(
        'div',
        { class: 'grid' },
        field('Produkt', c.ProductCode),
        field('Mottakertype', c.DeliveryType),
        field('Referanse', c.SenderReference),
      ),
      h('p', {}, 'Tilleggstjenester'),
      serviceBox,
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Avsender (henting)'),
      h(
        'div',
        { class: 'grid' },
        field('Firma', c.PickupCompanyName),
        field('Adresse', c.PickupAddress),
        field('Postnummer', c.PickupZip),
        field('Poststed', c.PickupPlace),
      ),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Mottaker'),
      h(
        'div',
        { class: 'grid' },
        field('Firma', c.RecipientCompanyName),
        field('Fornavn', c.RecipientFirstName),
        field('Etternavn', c.RecipientLastName),
        field('Adresse', c.RecipientAddress),
        field('Postnummer', c.RecipientZip),
        field('Poststed', c.RecipientPlace),
        field('Telefon', c.RecipientPhone),
        field('E-post', c.RecipientEmail),
      ),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Kolli'),
      h(
        'div',
        { class: 'grid' },
        field('Vekt (kg)', c.Weight),
        field('Lengde (cm)', c.Length),
        field('Bredde (cm)', c.Width),
        field('Høyde (cm)', c.Height),
      ),
    ),
    quote,
    summary,
    h('div', { class: 'actions' }, book),
  );

  c.ProductCode.addEventListener('change', () => {
    c.DeliveryType.value = productSegment() === 'B2C' ? 'Private' : 'Company';
    drawRecipientType();
    drawServices();
    refresh();
  });
  c.DeliveryType.addEventListener('change', () => {
    drawRecipientType();
    refresh();
  });
  for (const k of ['Weight', 'Length', 'Width', 'Height']) c[k].addEventListener('input', refresh);

  const sent = { body: null, key: null };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    for (const control of Object.values(c)) setError(control, null);
    summary.replaceChildren();
    const v = (k) => c[k].value.trim() || undefined;
    const body = {
      ShipmentStatus: 'Published',
      CustomerId: session.customerNr,
      ProductCode: c.ProductCode.value,
      DeliveryType: c.DeliveryType.value,
      Services: chosenServices(),
      SenderReference: v('SenderReference'),
      PickupCompanyName: v('PickupCompanyName'),
      PickupAddress: v('PickupAddress'),
      PickupZip: v('PickupZip'),
      PickupPlace: v('PickupPlace'),
      RecipientCompanyName: isPrivate() ? undefined : v('RecipientCompanyName'),
      RecipientFirstName: isPrivate() ? v('RecipientFirstName') : undefined,
      RecipientLastName: isPrivate() ? v('RecipientLastName') : undefined,
      RecipientAddress: v('RecipientAddress'),
      RecipientZip: v('RecipientZip'),
      RecipientPlace: v('RecipientPlace'),
      RecipientPhone: v('RecipientPhone'),
      RecipientEmail: v('RecipientEmail'),
      Parcels: [
        {
          Weight: decimal(c.Weight.value),
          Length: decimal(c.Length.value),
          Width: decimal(c.Width.value),
          Height: decimal(c.Height.value),
        },
      ],
    };
    book.disabled = true;
    // One key for the form as filled: pressing Book again after a lost answer replays the booking
    // instead of booking twice; a changed form is another booking.
    const text = JSON.stringify(body);
    if (text !== sent.body) Object.assign(sent, { body: text, key: crypto.randomUUID() });
    try {
      const result = await api('/Shipment/Update', {
        method: 'POST',
        body,
        headers: { 'idempotency-key': sent.key },
      });
      location.hash = `#/shipment/${result.ShipmentId}`;
    } catch (err) {
      if (err instanceof ApiError) showErrors(err);
      else
        summary.replaceChildren(
          h(
            'p',
            {},
            `Fikk ikke svar fra Kolli (${err.message}). Trykk Book igjen: sendingen blir ikke booket to ganger.`,
          ),
        );
    } finally {
      book.disabled = false;
    }
  });

  /** Each problem beside its field (`Parcels[0].Weight` beside the weight); the rest above Book. */
  function showErrors(err) {
    const byName = new Map(Object.keys(c).map((k) => [k.toLowerCase(), c[k]]));
    const rest = [];
    let first = null;
    for (const [name, messages] of Object.entries(err.errors)) {
      const last = name
        .split('.')
        .pop()
        .replace(/\[\d+\]$/, '')
        .toLowerCase();
      const control = byName.get(name.toLowerCase()) ?? byName.get(last);
      const text = messages.join(' ');
      if (control) {
        setError(control, text);
        first ??= control;
      } else rest.push(`${name}: ${text}`);
    }
    summary.replaceChildren(
      h(
        'p',
        {},
        Object.keys(err.errors).length
          ? 'Sendingen ble ikke booket. Rett feltene som er merket.'
          : err.message,
      ),
      ...(rest.length
        ? [
            h(
              'ul',
              {},
              rest.map((r) => h('li', {}, r)),
            ),
          ]
        : []),
    );
    first?.focus();
  }

  c.DeliveryType.value = productSegment() === 'B2C' ? 'Private' : 'Company';
  drawRecipientType();
  drawServices();
  main.replaceChildren(form);
}
