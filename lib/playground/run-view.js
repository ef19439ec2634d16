// One run (GET /sessions/{id}/runs/{runId}): its status, times, reply or pause, the raw record.
import { api, enc, refusal } from './api.js';
import { duration, facts, h, raw, time } from './dom.js';
import { links } from './router.js';

export async function runView(view, { sessionId, runId }) {
  view.title(`Run ${runId}`);
  const answer = await api(`/sessions/${enc(sessionId)}/runs/${enc(runId)}`);
  if (answer.status === 404) return view.notFound(`Run "${runId}" of session "${sessionId}"`);
  if (answer.status !== 200) return view.problem(refusal(answer.status, answer.body));
  const run = answer.body;
  view.body.append(
    h(
      'p',
      {},
      h('a', { href: links.session(sessionId) }, `Back to session ${sessionId}`),
      ' · ',
      h('a', { href: links.timeline(sessionId, runId) }, 'Timeline'),
    ),
    facts(
      [
        ['Status', run.status],
        ['Agent', run.agent],
        ['Started', time(run.createdAt)],
        ['Last change', time(run.updatedAt)],
        ['Took', duration(run.updatedAt - run.createdAt)],
      ],
      'Run summary',
    ),
  );
  if (run.input !== undefined) {
    const input = typeof run.input === 'string' ? run.input : JSON.stringify(run.input);
    view.body.append(h('h3', {}, 'Input'), h('p', { className: 'input' }, input));
  }
  const reply = run.reply ?? {};
  if (typeof reply.text === 'string' && reply.text) {
    view.body.append(h('h3', {}, 'Reply'), h('p', { className: 'reply' }, reply.text));
  }
  if (Array.isArray(reply.interruptions) && reply.interruptions.length > 0) {
    view.body.append(
      h('h3', {}, 'Waiting for decisions'),
      h(
        'ul',
        { className: 'calls', 'aria-label': 'Calls waiting for a decision' },
        reply.interruptions.map((i) =>
          h(
            'li',
            {},
            h('strong', {}, i.toolName ?? 'a tool'),
            h('pre', { className: 'args' }, JSON.stringify(i.arguments ?? {}, null, 2)),
          ),
        ),
      ),
    );
  }
  if (run.error) {
    view.body.append(h('p', { className: 'error' }, `${run.error.message} (${run.error.code})`));
  }
  view.body.append(raw('Raw run record', run));
}
