// A past or running turn of the chat, rebuilt after a reload from the run's stored events
// (GET /sessions/{id}/runs/{runId}/events?after=N): its text, reasoning, tool-call cards and
// approvals. A run still going is followed by polling the same route from its last seq until its
// terminal event, so a reload mid-run shows the rest of it.
import { api, enc } from './api.js';
import { h } from './dom.js';
import { approvalCard } from './view.js';

const TERMINAL = new Set(['run-finished', 'run-paused', 'run-error']);

/**
 * Every stored message of the run after `after` (up to seq `until`), across pauses: a page ends
 * at a terminal event, and a resume's seqs follow it.
 */
export async function pages(path, after, until = Number.POSITIVE_INFINITY) {
  const messages = [];
  for (;;) {
    const query = after < 0 ? '' : `after=${after}&`;
    const page = await api(`${path}?${query}limit=100`);
    if (page.status !== 200) return { messages, after, failed: page };
    messages.push(...page.body.messages);
    const done = page.body.messages.length === 0 || (!page.body.more && !page.body.ended);
    if (done || page.body.after >= until) return { messages, after: page.body.after };
    after = page.body.after;
  }
}

/**
 * Shows one turn: each stored event through `show(event)` once per (run, seq) in `seen`, but a
 * pause a later resume decided as disabled cards with their verdict (read from the run's
 * timeline: the journal knows whether the call ran). Returns what was shown, so the caller can fall back to the run record
 * for a turn that streamed nothing (a synchronous HTTP run keeps only its terminal event).
 */
export async function restoreTurn(sessionId, turn, { show, seen, stillPaused, status }) {
  const decided = [];
  const path = `/sessions/${enc(sessionId)}/runs/${enc(turn.runId)}/events`;
  const result = { shown: 0, text: false };
  let { messages, after } = await pages(path, -1);
  let ended = false;
  const feed = (list) => {
    const fresh = list.filter((m) => !seen.has(`${m.runId}:${m.seq}`));
    const events = fresh.flatMap((m) => m.events);
    events.forEach((event, index) => {
      // A pause is decided when anything follows it: shown as decided, not as live buttons.
      const past = event.type === 'run-paused' && (index < events.length - 1 || !stillPaused);
      if (event.type === 'text-delta') result.text = true;
      result.shown += 1;
      if (past) decided.push(...showDecided(event.interruptions));
      else show(event);
    });
    for (const m of fresh) seen.add(`${m.runId}:${m.seq}`);
    const last = list.at(-1);
    if (last) ended = last.events.some((e) => TERMINAL.has(e.type));
  };
  feed(messages);
  if (decided.length > 0) await fillVerdicts(sessionId, turn.runId, decided.splice(0));
  if (turn.status !== 'running' && turn.status !== 'queued') return result;
  result.follow = () => follow();
  return result;

  // Mid-run: follow the stored events until the run's terminal one.
  async function follow() {
    status('Reloaded mid-run: following the rest of it…');
    let pause = 200;
    while (!ended) {
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 1000);
      const next = await pages(path, after);
      after = next.after;
      if (next.failed && next.messages.length === 0) return;
      if (next.messages.length > 0) pause = 200;
      feed(next.messages);
    }
  }
}

/** A pause a resume already decided: its cards, disabled; the verdicts are filled in later. */
function showDecided(interruptions) {
  return interruptions.map((interruption) => {
    const { li } = approvalCard(interruption, () => undefined);
    li.classList.add('history');
    for (const control of li.querySelectorAll('button, textarea')) control.disabled = true;
    const verdict = h('p', { className: 'verdict' }, 'Decided.');
    li.append(verdict);
    return { id: interruption.id, verdict };
  });
}

const VERDICTS = {
  approved: 'Approved: the call ran.',
  denied: 'Denied: the call did not run.',
};

/** What each decision was, from the run's timeline (the journal knows which calls ran). */
async function fillVerdicts(sessionId, runId, cards) {
  const answer = await api(`/sessions/${enc(sessionId)}/runs/${enc(runId)}/timeline`);
  if (answer.status !== 200) return;
  const outcomes = new Map();
  for (const item of answer.body.items) {
    if (item.kind !== 'decision') continue;
    for (const d of item.decisions) outcomes.set(d.id, d.outcome);
  }
  for (const { id, verdict } of cards) {
    verdict.textContent = VERDICTS[outcomes.get(id)] ?? 'Decided.';
  }
}
