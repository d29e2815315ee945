// Find shipments: by id, or by pickup postal code and pickup dates, narrowed by status and reference.
import { api } from '../api.js';
import { failure, field, h, table } from '../dom.js';
import { day, num, today } from '../format.js';

/** The most shipments a reference search reads one by one. */
const REFERENCE_SEARCH_MAX = 200;

export async function shipmentsPage(main, { session }) {
  const id = h('input', { type: 'text', name: 'id', inputmode: 'numeric' });
  const zip = h('input', {
    type: 'text',
    name: 'zip',
    inputmode: 'numeric',
    maxlength: 4,
    value: sessionStorage.getItem('kolli.zip') ?? '',
  });
  const from = h('input', { type: 'date', name: 'from', value: today(-30) });
  const to = h('input', { type: 'date', name: 'to', value: today(14) });
  const status = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'Alle'),
    h('option', { value: 'booked' }, 'Booket, ikke hentet'),
    h('option', { value: 'picked' }, 'Hentet'),
  );
  const reference = h('input', { type: 'text', name: 'reference' });
  const result = h('div', { 'aria-live': 'polite' });

  const byId = h(
    'form',
    { class: 'panel', 'aria-label': 'Åpne sending' },
    h('div', { class: 'grid' }, field('Sendingsnummer', id)),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Åpne')),
  );
  byId.addEventListener('submit', (e) => {
    e.preventDefault();
    if (id.value.trim()) location.hash = `#/shipment/${encodeURIComponent(id.value.trim())}`;
  });

  const search = h(
    'form',
    { class: 'panel', 'aria-label': 'Søk i sendinger' },
    h(
      'div',
      { class: 'grid' },
      field('Hentepostnummer', zip),
      field('Hentedato fra', from),
      field('Hentedato til', to),
      field('Status', status),
      field('Referanse', reference),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Søk')),
  );
  search.addEventListener('submit', async (e) => {
    e.preventDefault();
    sessionStorage.setItem('kolli.zip', zip.value);
    result.replaceChildren(h('p', {}, 'Søker …'));
    try {
      let rows = await api('/v1/shipment/list', {
        query: {
          postalcode: zip.value,
          customerid: session.customerNr,
          pickupFromDate: from.value,
          pickupToDate: to.value,
        },
      });
      if (status.value === 'picked') rows = rows.filter((r) => r.PickedupDate);
      if (status.value === 'booked') rows = rows.filter((r) => !r.PickedupDate);
      const refs = new Map();
      if (reference.value.trim()) {
        // The list carries no references: each shipment is read, eight at a time, and only for a
        // period of at most REFERENCE_SEARCH_MAX shipments (a busy day has thousands).
        if (rows.length > REFERENCE_SEARCH_MAX) {
          result.replaceChildren(
            h(
              'p',
              { class: 'error', role: 'alert' },
              `${rows.length} sendinger i perioden: søk på referanse leser hver sending og tar høyst ${REFERENCE_SEARCH_MAX}. Velg en kortere periode.`,
            ),
          );
          return;
        }
        const wanted = reference.value.trim().toLowerCase();
        for (let i = 0; i < rows.length; i += 8) {
          await Promise.all(
            rows.slice(i, i + 8).map(async (r) => {
              const [first] = await api(`/v2/Shipment/${r.ShipmentId}`);
              refs.set(r.ShipmentId, (first?.References ?? []).map((x) => x.ReferenceText ?? '').join(', '));
            }),
          );
        }
        rows = rows.filter((r) => (refs.get(r.ShipmentId) ?? '').toLowerCase().includes(wanted));
      }
      result.replaceChildren(
        h('h2', {}, `${rows.length} sendinger`),
        table(
          [
            'Sending',
            'Hentedato',
            'Mottaker',
            'Til',
            { label: 'Kolli', num: true },
            { label: 'Vekt (kg)', num: true },
            'Status',
          ],
          rows.map((r) =>
            h(
              'tr',
              {},
              h('td', {}, h('a', { href: `#/shipment/${r.ShipmentId}` }, r.ShipmentId)),
              h('td', {}, day(r.PickupDate)),
              h('td', {}, r.RecipientName ?? ''),
              h('td', {}, `${r.RecipientZip ?? ''} ${r.RecipientPlace ?? ''}`),
              h('td', { class: 'num' }, num(r.NumberOfParcels)),
              h('td', { class: 'num' }, num(r.Weight)),
              h('td', {}, r.PickedupDate ? 'Hentet' : 'Booket'),
            ),
          ),
        ),
      );
    } catch (err) {
      result.replaceChildren(failure(err));
    }
  });

  main.replaceChildren(h('h1', {}, 'Sendinger'), byId, search, result);
}
