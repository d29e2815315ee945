// Webhooks: the account's registrations, create and edit, test-fire, and each one's delivery log
// (request, response, status, signature, retries).
import { ApiError, api } from '../api.js';
import { failure, field, h, setError, table, toast } from '../dom.js';
import { instantMs, moment } from '../format.js';

const TYPES = { 1: 'Kollinummer', 2: 'Sendingsnummer', 3: 'Kundenummer' };
/** A delivery's `status`, said in the portal's language. */
const DELIVERY_STATUS = { pending: 'venter', succeeded: 'levert', failed: 'mislyktes' };

/** The Standard Webhooks signature an attempt carried, recomputed in the browser from the secret. */
async function signature(secret, id, startedAt, payload) {
  if (!globalThis.crypto?.subtle) return null;
  const seconds = Math.floor(instantMs(startedAt) / 1000);
  if (!Number.isFinite(seconds)) return null;
  const keyBytes = secret.startsWith('whsec_')
    ? Uint8Array.from(atob(secret.slice(6)), (c) => c.charCodeAt(0))
    : new TextEncoder().encode(secret);
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${seconds}.${payload}`));
  return `v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`;
}

function randomSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

function editor(session, existing, done) {
  const c = {
    eventValueType: h(
      'select',
      { name: 'eventValueType' },
      Object.entries(TYPES).map(([v, t]) =>
        h('option', { value: v, selected: String(existing?.eventValueType ?? 3) === v }, t),
      ),
    ),
    eventValue: h('input', {
      type: 'text',
      name: 'eventValue',
      value: existing?.eventValue ?? session.customerNr,
    }),
    url: h('input', { type: 'url', name: 'url', value: existing?.url ?? '', placeholder: 'https://…' }),
    secret: h('input', { type: 'text', name: 'secret', value: existing?.secret ?? randomSecret() }),
    customHeaders: h('input', {
      type: 'text',
      name: 'customHeaders',
      value: existing?.customHeaders ?? '',
      placeholder: '{"X-Api-Key":"…"}',
    }),
  };
  const message = h('p', { class: 'error', role: 'alert' });
  const form = h(
    'form',
    { class: 'panel', novalidate: true, 'aria-label': existing ? 'Endre webhook' : 'Ny webhook' },
    h('h2', {}, existing ? 'Endre webhook' : 'Ny webhook'),
    h(
      'div',
      { class: 'grid' },
      field('Lytter på', c.eventValueType),
      field('Verdi', c.eventValue),
      field('Adresse (URL)', c.url),
      field('Hemmelighet', c.secret, 'Nøkkel for signaturene (whsec_…).'),
      field('Egne headere (JSON)', c.customHeaders),
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, existing ? 'Lagre' : 'Opprett'),
      h('button', { type: 'button', class: 'secondary', onclick: () => done(null) }, 'Avbryt'),
    ),
    message,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    for (const control of Object.values(c)) setError(control, null);
    message.textContent = '';
    const body = {
      eventValue: c.eventValue.value.trim(),
      eventValueType: Number(c.eventValueType.value),
      url: c.url.value.trim(),
      secret: c.secret.value,
      customHeaders: c.customHeaders.value.trim() || null,
    };
    try {
      const saved = existing
        ? await api(`/v1/Webhooks/${existing.uuid}`, { method: 'PUT', body })
        : await api('/v1/Webhooks', { method: 'POST', body });
      done(saved);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      message.textContent = err.message;
      for (const [name, msgs] of Object.entries(err.errors)) {
        const control = c[Object.keys(c).find((k) => k.toLowerCase() === name.toLowerCase())];
        if (control) setError(control, msgs.join(' '));
      }
    }
  });
  return form;
}

async function deliveriesView(hook) {
  const log = await api(`/v1/Webhooks/${hook.uuid}/deliveries`, { query: { limit: 20 } });
  const rows = await Promise.all(
    log.deliveries.map(async (d) => {
      const attempts = await Promise.all(
        d.attempts.map(async (a) => ({
          ...a,
          signature: await signature(hook.secret, d.id, a.startedAt, d.payload).catch(() => null),
        })),
      );
      return h(
        'details',
        { class: 'delivery' },
        h(
          'summary',
          {},
          `${moment(d.createdAt)} · ${d.type} · `,
          h(
            'span',
            { class: d.status === 'succeeded' ? 'status-good' : d.status === 'failed' ? 'status-bad' : '' },
            DELIVERY_STATUS[d.status] ?? d.status,
          ),
          ` · ${d.attempts.length} forsøk`,
        ),
        h('h4', {}, 'Forespørsel'),
        h('pre', {}, `POST ${hook.url}\nwebhook-id: ${d.id}\n\n${d.payload}`),
        attempts.map((a) =>
          h(
            'div',
            {},
            h(
              'h4',
              {},
              `Forsøk ${a.attempt}: ${a.statusCode ?? 'ingen svar'}${a.error ? ` – ${a.error}` : ''} (${a.durationMs} ms)`,
            ),
            h(
              'p',
              {},
              `Startet ${moment(a.startedAt)}${a.nextAttemptAt ? `; nytt forsøk ${moment(a.nextAttemptAt)}` : ''}`,
            ),
            a.signature ? h('p', {}, 'webhook-signature: ', h('code', {}, a.signature)) : null,
            h('pre', {}, a.responseBody ?? '(tomt svar)'),
          ),
        ),
      );
    }),
  );
  return h(
    'section',
    { 'aria-label': `Leveranser for ${hook.url}` },
    h('h3', {}, 'Leveranser'),
    log.enabled ? null : h('p', { class: 'status-bad' }, `Deaktivert: ${log.disabledReason ?? ''}`),
    rows.length ? rows : h('p', {}, 'Ingen leveranser ennå.'),
  );
}

export async function webhooksPage(main, ctx) {
  const s = ctx.session;
  const hooks = await api('/v1/Webhooks');
  const editArea = h('div');
  const detail = h('div', { 'aria-live': 'polite' });
  const reload = () => webhooksPage(main, ctx);
  // A refused action is said where its answer would be: a disabled or expired webhook's test is a
  // 409 saying how to make it live again, which was once lost as an unhandled rejection.
  const act = (fn) => async () => {
    try {
      await fn();
    } catch (err) {
      detail.replaceChildren(failure(err));
    }
  };
  const open = (form) => {
    editArea.replaceChildren(form);
    form.querySelector('input,select')?.focus();
  };
  main.replaceChildren(
    h('h1', {}, 'Webhooks'),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          onclick: () => open(editor(s, null, (saved) => (saved ? reload() : editArea.replaceChildren()))),
        },
        'Ny webhook',
      ),
    ),
    editArea,
    hooks.length === 0
      ? h('p', {}, 'Ingen webhooks ennå.')
      : table(
          ['Adresse', 'Lytter på', 'Utløper', 'Handlinger'],
          hooks.map((w) =>
            h(
              'tr',
              {},
              h('td', {}, w.url),
              h('td', {}, `${TYPES[w.eventValueType] ?? w.eventValueType} ${w.eventValue}`),
              h('td', {}, moment(w.expires)),
              h(
                'td',
                {},
                h(
                  'div',
                  { class: 'actions' },
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'secondary',
                      onclick: () =>
                        open(editor(s, w, (saved) => (saved ? reload() : editArea.replaceChildren()))),
                    },
                    'Endre',
                  ),
                  h(
                    'button',
                    {
                      type: 'button',
                      onclick: act(async () => {
                        const r = await api(`/v1/Webhooks/${w.uuid}/test`, { method: 'POST' });
                        toast(
                          r.succeeded
                            ? `Test levert (${r.statusCode})`
                            : `Test feilet: ${r.statusCode ?? r.error}`,
                        );
                        detail.replaceChildren(await deliveriesView(w));
                      }),
                    },
                    'Send test',
                  ),
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'secondary',
                      onclick: act(async () => detail.replaceChildren(await deliveriesView(w))),
                    },
                    'Leveranser',
                  ),
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'secondary',
                      onclick: act(async () => {
                        if (!confirm(`Slette webhooken til ${w.url}?`)) return;
                        await api(`/v1/Webhooks/${w.uuid}`, { method: 'DELETE' });
                        await reload();
                      }),
                    },
                    'Slett',
                  ),
                ),
              ),
            ),
          ),
        ),
    detail,
  );
}
