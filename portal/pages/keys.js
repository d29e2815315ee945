// API keys of the account. A customer's key cannot list keys (the carrier's administrator issues
// them); the page shows the key in use and every key of the account seen in the request log. An
// administrator's key lists all keys. Which one the key is, /v1/me tells: a customer's key never
// asks for the list, whose 403 its own request log would show as refused.
import { api } from '../api.js';
import { h, table } from '../dom.js';
import { moment, num } from '../format.js';

export async function keysPage(main, { session }) {
  const me = await api('/v1/me').catch(() => null);
  if (me?.Scopes?.includes('admin')) return adminKeys(main);
  const seen = new Map();
  const log = await api('/v1/RequestLog', { query: { Limit: 200 } }).catch(() => ({ Entries: [] }));
  for (const e of log.Entries) {
    const k = seen.get(e.KeyId) ?? { id: e.KeyId, last: e.Time, count: 0, failed: 0 };
    k.count += 1;
    if (e.Status >= 400) k.failed += 1;
    seen.set(e.KeyId, k);
  }
  main.replaceChildren(
    h('h1', {}, 'API-nøkler'),
    h(
      'div',
      { class: 'panel' },
      h(
        'p',
        {},
        `Innlogget for kunde ${session.customerNr}${session.keyId ? ` med nøkkel ${session.keyId} (tilgangstoken)` : ' med API-nøkkel'}.`,
      ),
      h('p', {}, 'Nye nøkler og tilbaketrekking av nøkler gjøres av transportørens administrator.'),
    ),
    h('h2', {}, 'Nøkler i bruk (fra forespørselsloggen)'),
    seen.size === 0
      ? h('p', {}, 'Ingen forespørsler registrert ennå.')
      : table(
          ['Nøkkel-id', 'Sist brukt', { label: 'Forespørsler', num: true }, { label: 'Avvist', num: true }],
          [...seen.values()].map((k) =>
            h(
              'tr',
              {},
              h('td', {}, k.id),
              h('td', {}, moment(k.last)),
              h('td', { class: 'num' }, num(k.count)),
              h('td', { class: 'num' }, num(k.failed)),
            ),
          ),
        ),
  );
}

/** A page of the administrator's key list, and the address of the next (its `Link: rel="next"`). */
async function keyPage(url) {
  const res = await api(url, { raw: true });
  const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1] ?? null;
  return { keys: await res.json(), next };
}

const keyRow = (k) =>
  h(
    'tr',
    {},
    h('td', {}, k.Id),
    h('td', {}, k.Name ?? ''),
    h('td', {}, (k.CustomerNrs ?? []).join(', ')),
    h('td', {}, (k.Scopes ?? []).join(', ')),
  );

/** Every key, newest first, a page of 100 at a time ("Flere" fetches the next). */
async function adminKeys(main) {
  let { keys, next } = await keyPage('/admin/api-keys');
  const list = table(['Id', 'Navn', 'Kunder', 'Tilganger'], keys.map(keyRow));
  const more = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      hidden: next === null,
      onclick: async () => {
        ({ keys, next } = await keyPage(next));
        list.querySelector('tbody').append(...keys.map(keyRow));
        more.hidden = next === null;
      },
    },
    'Flere',
  );
  main.replaceChildren(h('h1', {}, 'API-nøkler'), list, more);
}
