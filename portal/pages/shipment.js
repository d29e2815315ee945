// One shipment: parcels, addresses, the status timeline from its scan events, its price, labels
// (preview and download, PDF and ZPL) and, in the sandbox, buttons that move it on.
import { ApiError, api } from '../api.js';
import { failure, h, saveBlob, table, toast } from '../dom.js';
import { day, kr, moment, num, today } from '../format.js';

const EVENT_NAMES = {
  PickedUp: 'Hentet',
  ArrivedAtTerminal: 'Ankommet terminal',
  OutForDelivery: 'Ute for levering',
  Delivered: 'Levert',
  DeliveryFailed: 'Levering mislyktes',
  ReturnedToSender: 'Returnert til avsender',
};
/** `ParcelStatus` is the booking's state (CONTRACT §2); once scanned, the latest scan says more. */
const STATUS = {
  0: 'Kladd',
  1: 'Klar for publisering',
  2: 'Booket',
};

let sandbox;
/** Whether this installation offers the sandbox routes (its OpenAPI document says so). */
async function isSandbox() {
  sandbox ??= fetch('/openapi.json')
    .then((r) => r.json())
    .then((doc) => Object.keys(doc.paths ?? {}).some((p) => p.startsWith('/sandbox/')))
    .catch(() => false);
  return sandbox;
}

function address(a) {
  if (!a) return '–';
  const name = a.CompanyName ?? [a.FirstName, a.LastName].filter(Boolean).join(' ');
  return [name, a.Address, a.Address2, `${a.Zip ?? ''} ${a.Place ?? ''}`, a.Country]
    .filter(Boolean)
    .join(', ');
}

export async function shipmentPage(main, { session, params }) {
  const [id] = params;
  let parcels;
  try {
    parcels = await api(`/v2/Shipment/${encodeURIComponent(id)}`);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 400 || err.status === 403)) {
      // A key without the scope is told so: the shipment may well exist.
      const text =
        err.status === 403
          ? `Denne nøkkelen har ikke tilgang til å lese sendinger (${err.message}).`
          : `Fant ingen sending ${id} for denne kontoen.`;
      main.replaceChildren(h('h1', {}, 'Sending'), h('p', { role: 'alert' }, text));
      return;
    }
    throw err;
  }
  const first = parcels[0];
  const timeline = h('ol', { class: 'timeline', 'aria-label': 'Statushistorikk' });
  const price = h('div', { class: 'panel', 'data-testid': 'price' });
  const preview = h('div');

  let invoicesHidden = false;
  const status = h(
    'dd',
    { 'data-testid': 'status' },
    STATUS[first.ParcelStatus] ?? String(first.ParcelStatus),
  );

  async function drawTimeline() {
    const tracking = await api(`/v1/Shipment/${id}/events`);
    const events = tracking.Parcels.flatMap((p) =>
      p.Events.map((e) => ({ ...e, ParcelId: p.ParcelId })),
    ).sort((a, b) => (a.Time < b.Time ? -1 : 1));
    const latest = events.at(-1);
    if (latest) status.textContent = EVENT_NAMES[latest.EventType] ?? latest.EventType;
    timeline.replaceChildren(
      h('li', {}, h('strong', {}, 'Booket'), ` – hentedato ${day(first.PickupDate)}`),
      ...events.map((e) =>
        h(
          'li',
          {},
          h('strong', {}, EVENT_NAMES[e.EventType] ?? e.EventType),
          ` – ${moment(e.Time)}${e.Terminal ? `, terminal ${e.Terminal}` : ''}${parcels.length > 1 ? ` (kolli ${e.ParcelId})` : ''}`,
        ),
      ),
    );
  }

  async function drawPrice() {
    // The invoiced amount, with its invoice, once invoiced: the report of its pickup day alone (the
    // report is by pickup date), not of every day since. A draft or a shipment not picked up yet is
    // asked for today, which still says whether the key may read invoices.
    const picked = first.PickupDate?.slice(0, 10);
    const day = picked && picked <= today(1) ? picked : today();
    const report = await api('/v2/Invoice/GetInvoiceReport', {
      query: { Customernr: session.customerNr, Payer: 'S', FromPickupDate: day, ToPickupDate: day },
    }).catch((err) => {
      // Without the invoice scope nothing can be said of the invoice: not "not invoiced yet".
      if (err instanceof ApiError && err.status === 403) invoicesHidden = true;
      return [];
    });
    // Every record of the shipment, by invoice number: its invoice and, once credited, the credit
    // note's record, told by its negative amount. Showing the first alone called a credited shipment
    // still charged.
    const invoiceNr = (r) => r.InvoiceNumber ?? r.InvoiceNr;
    const amount = (r) => r.NetShipping ?? r.TotalFreightPrice;
    const lines = report
      .filter((r) => r.Waybillnr === id || r.ShipmentNr === id)
      .sort((a, b) => Number(invoiceNr(a)) - Number(invoiceNr(b)));
    if (lines.length) {
      price.replaceChildren(
        h('h2', {}, 'Pris'),
        ...lines.map((line) =>
          h(
            'p',
            {},
            Number(amount(line)) < 0 ? 'Kreditert: ' : 'Fakturert: ',
            `${kr(amount(line))} eks. mva, ${Number(amount(line)) < 0 ? 'kreditnota' : 'faktura'} `,
            h('a', { href: `#/invoices/${invoiceNr(line)}` }, String(invoiceNr(line))),
          ),
        ),
      );
      return;
    }
    // Not invoiced yet: the booked price (frozen when published), or what it would cost if published now.
    const booked = await api(`/v2/Shipment/${encodeURIComponent(id)}/price`).catch(() => null);
    price.replaceChildren(
      h('h2', {}, 'Pris'),
      h(
        'p',
        {},
        booked
          ? `${kr(booked.Total)} eks. mva (${booked.Quote ? 'beregnet etter avtalen; ikke booket ennå' : invoicesHidden ? 'booket pris; denne nøkkelen har ikke tilgang til fakturaer' : 'booket pris; ikke fakturert ennå'})`
          : invoicesHidden
            ? 'Denne nøkkelen har ikke tilgang til fakturaer.'
            : 'Ikke fakturert ennå.',
      ),
    );
  }

  async function label(format, download) {
    const res = await api(`/v1/labels/${id}`, { query: { format }, raw: true }).catch((err) => {
      // A refused label (a key without the labels scope, a draft) is said where the label would be.
      preview.replaceChildren(failure(err));
      return null;
    });
    if (!res) return;
    const blob = await res.blob();
    if (download) return saveBlob(blob, `kolli-${id}.${format}`);
    if (format === 'zpl') {
      preview.replaceChildren(h('h3', {}, 'ZPL'), h('pre', { 'data-testid': 'zpl' }, await blob.text()));
    } else {
      preview.replaceChildren(
        h('iframe', { class: 'label', title: `Etikett for sending ${id}`, src: URL.createObjectURL(blob) }),
      );
    }
  }

  const actions = h(
    'div',
    { class: 'actions' },
    h('button', { type: 'button', onclick: () => label('pdf', false) }, 'Vis etikett'),
    h('button', { type: 'button', class: 'secondary', onclick: () => label('pdf', true) }, 'Last ned PDF'),
    h('button', { type: 'button', class: 'secondary', onclick: () => label('zpl', true) }, 'Last ned ZPL'),
    h('button', { type: 'button', class: 'secondary', onclick: () => label('zpl', false) }, 'Vis ZPL'),
  );

  const sandboxActions = (await isSandbox())
    ? h(
        'div',
        { class: 'panel' },
        h('h2', {}, 'Sandkasse'),
        h('p', {}, 'Flytt sendingen videre, slik bæreren ville skannet den.'),
        h(
          'div',
          { class: 'actions' },
          h(
            'button',
            {
              type: 'button',
              'data-advance': '',
              onclick: async (e) => {
                e.target.disabled = true;
                try {
                  const r = await api(`/sandbox/shipments/${id}/advance`, { method: 'POST' });
                  toast(`Ny hendelse: ${EVENT_NAMES[r.EventType] ?? r.EventType}`);
                  // Read again, whole: a pickup scan moves the pickup date, and the price may follow.
                  await shipmentPage(main, { session, params });
                  main.querySelector('[data-advance]')?.focus();
                  return;
                } catch (err) {
                  toast(err.message);
                } finally {
                  e.target.disabled = false;
                }
              },
            },
            'Flytt videre (hentet → terminal → levert)',
          ),
        ),
      )
    : null;

  main.replaceChildren(
    h('h1', {}, `Sending ${id}`),
    h(
      'dl',
      { class: 'panel' },
      h('dt', {}, 'Status'),
      status,
      h('dt', {}, 'Produkt'),
      h(
        'dd',
        {},
        `${first.ProductCode}${first.Services?.length ? `, tjenester ${first.Services.map((s) => s.ServiceCode ?? s).join(', ')}` : ''}`,
      ),
      h('dt', {}, 'Fra'),
      h('dd', {}, address(first.Addresses.find((a) => a.AddressTypeId === 1))),
      h('dt', {}, 'Til'),
      h('dd', {}, address(first.Addresses.find((a) => a.AddressTypeId === 2))),
      h('dt', {}, 'Henting / levering'),
      h('dd', {}, `${day(first.PickupDate)} / ${day(first.DeliveryDate)}`),
      h('dt', {}, 'Referanser'),
      h('dd', {}, first.References.map((r) => r.ReferenceText).join(', ') || '–'),
    ),
    h('h2', {}, 'Kolli'),
    table(
      ['Kollinummer', { label: 'Vekt (kg)', num: true }, { label: 'L × B × H (cm)', num: true }],
      parcels.map((p) =>
        h(
          'tr',
          {},
          h('td', {}, p.ParcelId),
          h('td', { class: 'num' }, num(p.Weight)),
          h('td', { class: 'num' }, p.Length ? `${num(p.Length)} × ${num(p.Width)} × ${num(p.Height)}` : '–'),
        ),
      ),
    ),
    h('h2', {}, 'Status'),
    timeline,
    sandboxActions,
    price,
    h('h2', {}, 'Etiketter'),
    actions,
    preview,
  );
  await Promise.all([drawTimeline(), drawPrice()]);
}
