// Invoices: those of a period (from the invoice report), one invoice's lines, VAT when the report
// gives it, and the PDF.
import { api } from '../api.js';
import { failure, field, h, saveBlob, table } from '../dom.js';
import { day, kr, num, today } from '../format.js';

const VAT = /vat|mva/i;
/** The invoice details' VAT fields, as the page heads them. */
const VAT_LABELS = { VatPercent: 'Mva-sats', VatKr: 'Mva' };

async function invoicePage(main, session, nr) {
  const lines = await api('/v1/Invoice/GetInvoiceDetails', {
    query: { Customernr: session.customerNr, Invoicenr: nr },
  });
  // The details of an invoice the customer has none of are an empty list: no such invoice.
  if (lines.length === 0) {
    main.replaceChildren(
      h('h1', {}, `Faktura ${nr}`),
      h('p', { class: 'error', role: 'alert' }, `Kunde ${session.customerNr} har ingen faktura ${nr}.`),
      h('a', { href: '#/invoices' }, 'Alle fakturaer'),
    );
    return;
  }
  const net = lines.reduce((s, l) => s + Number(l.AmountKr ?? 0), 0);
  const vatKeys = [...new Set(lines.flatMap((l) => Object.keys(l).filter((k) => VAT.test(k))))];
  const vat = vatKeys.length
    ? lines.reduce(
        (s, l) => s + vatKeys.filter((k) => /kr|amount/i.test(k)).reduce((t, k) => t + Number(l[k] ?? 0), 0),
        0,
      )
    : null;
  main.replaceChildren(
    h('h1', {}, `Faktura ${nr}`),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          onclick: async (e) => {
            const res = await api(`/v1/Invoice/${nr}/pdf`, { raw: true }).catch((err) => {
              e.target.after(failure(err));
              return null;
            });
            if (res) saveBlob(await res.blob(), `faktura-${nr}.pdf`);
          },
        },
        'Last ned PDF',
      ),
      h('a', { href: '#/invoices' }, 'Alle fakturaer'),
    ),
    table(
      [
        'Linje',
        'Sending',
        'Hentedato',
        'Produkt',
        'Mottaker',
        { label: 'Kolli', num: true },
        { label: 'Vekt (kg)', num: true },
        { label: 'Beløp', num: true },
        ...vatKeys.map((k) => ({ label: VAT_LABELS[k] ?? k, num: true })),
      ],
      lines.map((l) =>
        h(
          'tr',
          {},
          h('td', {}, l.RowNumber),
          h('td', {}, h('a', { href: `#/shipment/${l.Consignment}` }, l.Consignment)),
          h('td', {}, day(l.PickupDate)),
          h('td', {}, l.ProductName ?? l.ProductCode ?? ''),
          h('td', {}, l.RecipientName ?? ''),
          h('td', { class: 'num' }, num(l.NumberOfParcels)),
          h('td', { class: 'num' }, num(l.CalculationWeightKg)),
          h('td', { class: 'num' }, kr(l.AmountKr)),
          ...vatKeys.map((k) =>
            h(
              'td',
              { class: 'num' },
              /percent/i.test(k)
                ? `${num(l[k])} %`
                : typeof l[k] === 'number' || /^-?\d/.test(l[k] ?? '')
                  ? kr(l[k])
                  : String(l[k] ?? ''),
            ),
          ),
        ),
      ),
    ),
    h(
      'dl',
      { class: 'panel', 'aria-label': 'Sum' },
      h('dt', {}, 'Sum eks. mva'),
      h('dd', { 'data-testid': 'invoice-net' }, kr(net)),
      vat !== null
        ? [h('dt', {}, 'Mva'), h('dd', {}, kr(vat)), h('dt', {}, 'Sum inkl. mva'), h('dd', {}, kr(net + vat))]
        : null,
    ),
    h('p', {}, `KID: ${lines[0]?.Kid ?? '–'}`),
  );
}

export async function invoicesPage(main, { session, params }) {
  if (params[0]) return invoicePage(main, session, params[0]);
  const from = h('input', { type: 'date', name: 'from', value: today(-90) });
  const to = h('input', { type: 'date', name: 'to', value: today() });
  const result = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'panel', 'aria-label': 'Periode' },
    h('div', { class: 'grid' }, field('Fakturadato fra', from), field('Fakturadato til', to)),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Vis fakturaer')),
  );
  async function load() {
    // One small record an invoice (GET /v1/Invoice/list), not a period of the invoice report.
    const invoices = await api('/v1/Invoice/list', {
      query: { Customernr: session.customerNr, FromInvoiceDate: from.value, ToInvoiceDate: to.value },
    });
    result.replaceChildren(
      invoices.length === 0
        ? h('p', {}, 'Ingen fakturaer i perioden.')
        : table(
            [
              'Faktura',
              'Fakturadato',
              'Forfall',
              { label: 'Sendinger', num: true },
              { label: 'Sum eks. mva', num: true },
            ],
            invoices.map((i) =>
              h(
                'tr',
                {},
                h(
                  'td',
                  {},
                  h('a', { href: `#/invoices/${i.InvoiceNr}` }, String(i.InvoiceNr)),
                  i.IsCreditNote ? ` (kreditnota for ${i.CreditsInvoiceNr ?? '–'})` : '',
                ),
                h('td', {}, day(i.InvoiceDate)),
                h('td', {}, day(i.DueDate)),
                h('td', { class: 'num' }, num(i.Shipments)),
                h('td', { class: 'num' }, kr(i.TotalKr)),
              ),
            ),
          ),
    );
  }
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    load().catch((err) => result.replaceChildren(failure(err)));
  });
  main.replaceChildren(h('h1', {}, 'Fakturaer'), form, result);
  await load();
}
