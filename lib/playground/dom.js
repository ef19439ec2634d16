// A small element builder for the console views: text always goes in as textContent.

/** `h('a', { href: '#/x' }, 'text', child)`: props are attributes, `on*` are listeners. */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (key.startsWith('on')) element.addEventListener(key.slice(2), value);
    else if (key === 'className') element.className = value;
    else if (key in element && typeof value !== 'string') element[key] = value;
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
  return element;
}

export const time = (ms) => (typeof ms === 'number' ? new Date(ms).toLocaleString() : '—');

export function duration(ms) {
  if (typeof ms !== 'number' || ms < 0) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** A definition list of `[term, value]` rows. */
export function facts(rows, label) {
  return h(
    'dl',
    { className: 'facts', 'aria-label': label },
    rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}

/** Raw JSON one click away: a disclosure with the value pretty-printed. */
export function raw(summary, value) {
  return h(
    'details',
    { className: 'raw' },
    h('summary', {}, summary),
    h('pre', {}, JSON.stringify(value, null, 2)),
  );
}
