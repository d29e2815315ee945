// The request log: every request made with the account's keys, newest first, filterable by status
// and path; each one opens with its bodies and copies as a curl command.
import { api } from '../api.js';
import { field, h, toast } from '../dom.js';
import { moment, num } from '../format.js';

const quote = (s) => `'${String(s).replace(/'/g, "'\\''")}'`;

/** The request as a curl command; the key stays a variable (it was never stored). */
export function curlOf(entry, origin = location.origin) {
  const parts = [
    `curl -X ${entry.Method} ${quote(origin + entry.Path)}`,
    // Double quotes, so the shell puts the key in when the command is run.
    `-H "Authorization: Bearer $KOLLI_API_KEY"`,
  ];
  if (entry.RequestContentType) parts.push(`-H ${quote(`Content-Type: ${entry.RequestContentType}`)}`);
  if (entry.RequestBody) parts.push(`--data-raw ${quote(entry.RequestBody)}`);
  const command = parts.join(' \\\n  ');
  // A secret was never stored: the command says so rather than sending "[redacted]" as one.
  const redacted = `${entry.Path}${entry.RequestBody ?? ''}`;
  return redacted.includes('[redacted]') || redacted.includes('%5Bredacted%5D')
    ? `# Fyll inn verdiene som er lagret som [redacted] før du kjører kommandoen.\n${command}`
    : command;
}

function pretty(text) {
  if (!text) return '(tom)';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast('Kopiert som curl-kommando');
  } catch {
    toast('Kunne ikke kopiere; merk teksten og kopier den.');
  }
}

export async function requestsPage(main) {
  const status = h(
    'select',
    { name: 'Status' },
    h('option', { value: '' }, 'Alle'),
    h('option', { value: '2xx' }, '2xx (vellykket)'),
    h('option', { value: '4xx' }, '4xx (avvist)'),
    h('option', { value: '5xx' }, '5xx (feil hos oss)'),
    ['400', '401', '403', '404', '409', '422', '429'].map((s) => h('option', { value: s }, s)),
  );
  const path = h('input', { type: 'search', name: 'Path', placeholder: '/Shipment/Update' });
  const list = h('div', { 'aria-live': 'polite' });
  let before = null;

  async function load(append) {
    const page = await api('/v1/RequestLog', {
      query: {
        Status: status.value,
        Path: path.value.trim(),
        Before: append ? before : undefined,
        Limit: 50,
      },
    });
    if (!page.Enabled) {
      list.replaceChildren(h('p', {}, 'Forespørselsloggen er slått av på denne installasjonen.'));
      return;
    }
    before = page.NextBefore;
    const items = page.Entries.map((e) =>
      h(
        'details',
        { class: 'request', 'data-status': e.Status },
        h(
          'summary',
          {},
          h('span', { class: e.Status >= 400 ? 'status-bad' : 'status-good' }, String(e.Status)),
          ` ${e.Method} ${e.Path} · ${moment(e.Time)} · ${num(e.DurationMs)} ms`,
        ),
        h('p', {}, `Request-id: ${e.RequestId} · nøkkel ${e.KeyId}`),
        h('h3', {}, 'Forespørsel'),
        h('pre', {}, pretty(e.RequestBody)),
        h('h3', {}, 'Svar'),
        h('pre', { class: 'response' }, pretty(e.ResponseBody)),
        h(
          'div',
          { class: 'actions' },
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              'aria-label': `Kopier som curl: ${e.Method} ${e.Path}`,
              onclick: () => copy(curlOf(e)),
            },
            'Kopier som curl',
          ),
        ),
        h('pre', { class: 'curl', 'aria-label': 'curl-kommando' }, curlOf(e)),
      ),
    );
    if (!append) list.replaceChildren();
    if (!append && items.length === 0) list.append(h('p', {}, 'Ingen forespørsler passer filteret.'));
    list.append(...items);
    more.hidden = before === null;
  }

  const more = h(
    'button',
    { type: 'button', class: 'secondary', hidden: true, onclick: () => load(true) },
    'Eldre',
  );
  const form = h(
    'form',
    { class: 'panel', role: 'search', 'aria-label': 'Filtrer forespørsler' },
    h('div', { class: 'grid' }, field('Status', status), field('Sti inneholder', path)),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Filtrer')),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    load(false);
  });
  main.replaceChildren(
    h('h1', {}, 'Forespørsler'),
    h(
      'p',
      {},
      'Alt integrasjonen har sendt med kontoens nøkler, nyeste først. Nøkler, tokens og hemmeligheter er fjernet før lagring.',
    ),
    form,
    list,
    more,
  );
  await load(false);
}
