// The portal's shell: sign-in, the menu and a hash router over the pages.
import { ApiError, api, session, setSession, token } from './api.js';
import { field, h, setError } from './dom.js';
import { bookPage } from './pages/book.js';
import { invoicesPage } from './pages/invoices.js';
import { keysPage } from './pages/keys.js';
import { requestsPage } from './pages/requests.js';
import { shipmentPage } from './pages/shipment.js';
import { shipmentsPage } from './pages/shipments.js';
import { webhooksPage } from './pages/webhooks.js';

const ROUTES = {
  book: bookPage,
  shipments: shipmentsPage,
  shipment: shipmentPage,
  invoices: invoicesPage,
  webhooks: webhooksPage,
  keys: keysPage,
  requests: requestsPage,
};

const TITLES = {
  book: 'Book sending',
  shipments: 'Sendinger',
  shipment: 'Sending',
  invoices: 'Fakturaer',
  webhooks: 'Webhooks',
  keys: 'API-nøkler',
  requests: 'Forespørsler',
};

function signInPage(main) {
  const key = h('input', { type: 'password', autocomplete: 'off', required: true, name: 'key' });
  const keyId = h('input', { type: 'text', autocomplete: 'off', name: 'keyId' });
  const customer = h('input', {
    type: 'text',
    inputmode: 'numeric',
    required: true,
    name: 'customerNr',
    value: '1000',
  });
  const message = h('p', { class: 'error', role: 'alert' });
  const form = h(
    'form',
    { class: 'panel', 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title' }, 'Logg inn'),
    h('p', {}, 'Med API-nøkkelen til kontoen. Nøkkelen huskes bare i denne nettleserfanen.'),
    h(
      'div',
      { class: 'grid' },
      field('Kundenummer', customer),
      field('API-nøkkel', key),
      field('Nøkkel-id (valgfritt)', keyId, 'Gi nøkkel-id for å logge inn med et tilgangstoken (OAuth).'),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Logg inn')),
    message,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    message.textContent = '';
    setError(key, null);
    setError(customer, null);
    try {
      const credential = keyId.value.trim()
        ? await token(keyId.value.trim(), key.value.trim())
        : key.value.trim();
      // Checks the key: it must be valid and act for the customer number.
      await api(`/v1/customers/${encodeURIComponent(customer.value.trim())}`, { token: credential });
      setSession({ token: credential, customerNr: customer.value.trim(), keyId: keyId.value.trim() || null });
      location.hash = '#/book';
      render();
    } catch (err) {
      const status = err instanceof ApiError ? err.status : 0;
      const text =
        status === 401
          ? 'Nøkkelen er ikke gyldig.'
          : status === 403
            ? 'Nøkkelen kan ikke handle for dette kundenummeret.'
            : status === 400 || status === 404
              ? 'Kundenummeret finnes ikke.'
              : err.message;
      message.textContent = text;
      // Under the field it is about: the key's refusal under the key, the customer's under the number.
      setError(
        status === 401 ? key : status === 403 || status === 400 || status === 404 ? customer : key,
        text,
      );
    }
  });
  main.replaceChildren(form);
}

function header(s) {
  const nav = document.getElementById('nav');
  const who = document.getElementById('who');
  nav.hidden = !s;
  who.replaceChildren(
    ...(s
      ? [
          h('span', {}, `Kunde ${s.customerNr}`),
          h(
            'button',
            {
              type: 'button',
              onclick: () => {
                setSession(null);
                location.hash = '';
                render();
              },
            },
            'Logg ut',
          ),
        ]
      : []),
  );
}

export async function render() {
  const main = document.getElementById('main');
  const s = session();
  header(s);
  if (!s) {
    document.title = 'Logg inn – Kolli-portalen';
    return signInPage(main);
  }
  const [name = 'book', ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  const page = ROUTES[name] ?? bookPage;
  document.title = `${TITLES[name] ?? TITLES.book} – Kolli-portalen`;
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.getAttribute('href') === `#/${name === 'shipment' ? 'shipments' : name}`)
      a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  main.replaceChildren(h('p', {}, 'Laster …'));
  try {
    await page(main, { session: s, params: rest.map(decodeURIComponent) });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      setSession(null);
      return render();
    }
    main.replaceChildren(
      h('h1', {}, 'Noe gikk galt'),
      h('p', { class: 'error', role: 'alert' }, err.message),
    );
  }
  main.focus();
}

window.addEventListener('hashchange', render);
// The skip link moves the focus to the page, not the hash: `#main` is no page of the router's.
document.querySelector('a.skip')?.addEventListener('click', (e) => {
  e.preventDefault();
  document.getElementById('main')?.focus();
});
render();
