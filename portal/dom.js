// A tiny element builder: text is always set as text, never parsed as HTML.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  // A scrolling block of text must be reachable by keyboard.
  if (tag === 'pre') el.tabIndex = 0;
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** A failed call, said: the problem's text, then each field's complaint (a 400's `errors`). */
export function failure(err) {
  const errors = Object.entries(err?.errors ?? {});
  return h(
    'div',
    { class: 'error', role: 'alert' },
    h('p', {}, err?.message ?? String(err)),
    errors.length
      ? h(
          'ul',
          {},
          errors.map(([name, messages]) => h('li', {}, `${name}: ${messages.join(' ')}`)),
        )
      : null,
  );
}

let ids = 0;

/** A labelled form field with its error line; `control` is an input, select or textarea. */
export function field(label, control, hint) {
  const id = control.id || `f${++ids}`;
  control.id = id;
  const error = h('p', { class: 'error', id: `${id}-error`, hidden: true });
  const described = [hint ? `${id}-hint` : null, `${id}-error`].filter(Boolean).join(' ');
  control.setAttribute('aria-describedby', described);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    hint ? h('small', { id: `${id}-hint` }, hint) : null,
    control,
    error,
  );
}

/** Shows (or clears, with null) the problem beside a field. */
export function setError(control, message) {
  const error = document.getElementById(`${control.id}-error`);
  if (!error) return;
  error.textContent = message ?? '';
  error.hidden = !message;
  if (message) control.setAttribute('aria-invalid', 'true');
  else control.removeAttribute('aria-invalid');
}

export function table(headers, rows, caption) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      caption ? h('caption', { class: 'visually-hidden' }, caption) : null,
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((t) => h('th', { scope: 'col', class: t.num ? 'num' : null }, t.label ?? t)),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}

export function toast(message) {
  const el = document.getElementById('toast');
  el.textContent = message;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => {
    el.textContent = '';
  }, 4000);
}

/** A download of a Blob under a file name. */
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
