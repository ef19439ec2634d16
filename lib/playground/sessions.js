// The console's session views: the caller's sessions (GET /sessions, paged) and one session
// (GET /sessions/{id}: its summary; its turns; DELETE clears it).
import { api, enc, refusal } from './api.js';
import { facts, h, time } from './dom.js';
import { links } from './router.js';

/** The caller's sessions, newest first; "More sessions" fetches the next page. */
export async function sessionsView(view) {
  const list = h('ol', { className: 'sessions', 'aria-label': 'Your sessions' });
  const status = h('p', { role: 'status' }, 'Loading your sessions…');
  view.title('Sessions');
  view.body.append(status, list);
  const more = h('button', { type: 'button', className: 'more' }, 'More sessions');
  let cursor;
  const load = async () => {
    more.disabled = true;
    const query = cursor ? `?cursor=${enc(cursor)}` : '';
    const page = await api(`/sessions${query}`);
    if (page.status !== 200) {
      status.textContent = refusal(page.status, page.body);
      return;
    }
    for (const s of page.body.sessions) list.append(sessionRow(s));
    const count = list.children.length;
    status.textContent = count === 0 ? 'No sessions yet: start one in the chat.' : '';
    cursor = page.body.next;
    more.disabled = false;
    more.hidden = !cursor;
  };
  more.addEventListener('click', () => void load());
  view.body.append(more);
  await load();
}

function sessionRow(s) {
  const paused = s.paused ? `, ${s.paused} waiting for a decision` : '';
  return h(
    'li',
    {},
    h('a', { href: links.session(s.sessionId) }, s.sessionId),
    h(
      'span',
      { className: 'meta' },
      ` ${s.agent ?? 'no agent yet'} · ${s.turns} turn${s.turns === 1 ? '' : 's'}${paused} · updated ${time(s.updatedAt)}`,
    ),
  );
}

function turnRow(sessionId, turn, paused) {
  const input = turn.input === undefined ? turn.runId : turn.input;
  const text = typeof input === 'string' ? input : JSON.stringify(input);
  const state = paused ? 'waiting for a decision' : turn.status;
  return h(
    'li',
    {},
    h('a', { href: links.run(sessionId, turn.runId) }, text),
    h('span', { className: 'meta' }, ` ${state} · ${time(turn.createdAt)}`),
  );
}

/**
 * One session. Its summary is fetched first: a session that is not the caller's answers 404, and
 * then nothing else of it is asked for.
 */
export async function sessionView(view, { sessionId }, chat) {
  view.title(`Session ${sessionId}`);
  const summary = await api(`/sessions/${enc(sessionId)}`);
  if (summary.status === 404) return view.notFound(`Session "${sessionId}"`);
  if (summary.status !== 200) return view.problem(refusal(summary.status, summary.body));
  const s = summary.body;
  view.body.append(
    facts(
      [
        ['Agent', s.agent ?? '—'],
        ['Turns', String(s.turns)],
        ['Created', time(s.createdAt)],
        ['Updated', time(s.updatedAt)],
      ],
      'Session summary',
    ),
  );
  const paused = new Set((s.paused ?? []).map((p) => p.runId));
  const turns = await api(`/sessions/${enc(sessionId)}/turns?limit=100`);
  view.body.append(h('h3', {}, 'Turns'));
  if (turns.status !== 200) {
    view.body.append(h('p', { className: 'error' }, refusal(turns.status, turns.body)));
  } else if (turns.body.turns.length === 0) {
    view.body.append(h('p', {}, 'No turns yet.'));
  } else {
    view.body.append(
      h(
        'ol',
        { className: 'runs', 'aria-label': 'Turns of this session' },
        turns.body.turns.map((t) => turnRow(sessionId, t, paused.has(t.runId))),
      ),
    );
  }
  const problem = h('p', { role: 'alert', className: 'error' });
  const open = h(
    'button',
    { type: 'button', onclick: () => chat.open(sessionId) },
    'Continue in the chat',
  );
  const clear = h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        clear.disabled = true;
        const answer = await api(`/sessions/${enc(sessionId)}`, { method: 'DELETE' });
        if (answer.status !== 200) {
          clear.disabled = false;
          problem.textContent = refusal(answer.status, answer.body);
          return;
        }
        chat.forget(sessionId);
        location.hash = links.sessions;
      },
    },
    'Clear this session',
  );
  view.body.append(h('div', { className: 'actions' }, open, clear), problem);
}
