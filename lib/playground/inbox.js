// The approvals inbox (GET /approvals): the paused runs the caller may decide (an approver's:
// every session's; anyone else's: their own), each call with its arguments; approve, deny or edit
// them (POST …/decisions, resumed in the request) and the run's outcome once resumed.
import { api, enc, refusal } from './api.js';
import { facts, h, time } from './dom.js';

const pretty = (value) => JSON.stringify(value ?? {}, null, 2);

export async function inboxView(view) {
  view.title('Approvals');
  const scope = h('p', { className: 'scope' });
  const status = h('p', { role: 'status' }, 'Loading the paused runs…');
  const list = h('ol', { className: 'inbox', 'aria-label': 'Paused runs waiting for a decision' });
  const more = h('button', { type: 'button', className: 'more', hidden: true }, 'More paused runs');
  view.body.append(scope, status, list, more);
  let cursor;
  const load = async () => {
    more.disabled = true;
    const page = await api(`/approvals${cursor ? `?cursor=${enc(cursor)}` : ''}`);
    if (page.status !== 200) {
      status.textContent = refusal(page.status, page.body);
      return;
    }
    scope.textContent = page.body.approver
      ? 'You are an approver: every paused run waiting for a decision, the longest waiting first.'
      : 'Your own paused runs waiting for a decision, the longest waiting first.';
    for (const run of page.body.approvals) list.append(pausedRun(run));
    status.textContent = list.children.length === 0 ? 'Nothing waits for a decision.' : '';
    cursor = page.body.next;
    more.disabled = false;
    more.hidden = !cursor;
  };
  more.addEventListener('click', () => void load());
  await load();
}

/** One paused run: who it is for, then one decision card per waiting call. */
function pausedRun(run) {
  const titleId = `inbox-${run.sessionId}-${run.runId}`;
  const calls = run.interruptions.map((i) => i.toolName ?? i.kind).join(', ');
  const outcome = h('div', { className: 'outcome', role: 'status', 'aria-live': 'polite' });
  const decisions = new Map();
  const cards = [];
  const send = async () => {
    for (const card of cards) card.lock();
    outcome.replaceChildren(h('p', {}, 'Deciding: the run resumes…'));
    const path = `/sessions/${enc(run.sessionId)}/runs/${enc(run.runId)}/decisions`;
    const answer = await api(path, {
      method: 'POST',
      body: { decisions: run.interruptions.map((i) => decisions.get(i.id)) },
    }).catch(() => ({ status: 0, body: {} }));
    outcome.replaceChildren(...outcomeOf(answer));
  };
  const li = h(
    'li',
    { 'aria-labelledby': titleId },
    h('h3', { id: titleId }, `${calls} for ${run.owner}`),
    facts(
      [
        ['Owner', run.owner],
        ['Session', run.sessionId],
        ['Run', run.runId],
        ['Agent', run.agent],
        ['Waiting since', time(run.createdAt)],
        ['Expires', time(run.expiresAt)],
      ],
      `Paused run ${run.runId}`,
    ),
  );
  for (const interruption of run.interruptions) {
    const card = decisionCard(run, interruption, (decision) => {
      decisions.set(interruption.id, decision);
      if (decisions.size === run.interruptions.length) void send();
    });
    cards.push(card);
    li.append(card.element);
  }
  li.append(outcome);
  return li;
}

/** What happened after the decision: the resumed run's reply, or why it did not run. */
function outcomeOf(answer) {
  const { status, body } = answer;
  if (status === 200 && body.status === 'completed') {
    return [h('p', { className: 'verdict' }, 'Resumed: the run completed.'), reply(body.text)];
  }
  if (status === 200 && body.status === 'paused') {
    const waiting = (body.interruptions ?? []).map((i) => i.toolName ?? i.kind).join(', ');
    return [
      h('p', { className: 'verdict' }, `Resumed, and paused again: ${waiting} waits.`),
      reply(body.text),
    ];
  }
  if (status === 409 && body.code === 'run-already-resumed') {
    return [
      h(
        'p',
        { className: 'error', role: 'alert' },
        `Someone else decided this run first: ${body.message}`,
      ),
    ];
  }
  if (status === 0) {
    return [
      h('p', { className: 'error', role: 'alert' }, 'Cannot reach the API. Is the stack running?'),
    ];
  }
  return [h('p', { className: 'error', role: 'alert' }, refusal(status, body))];
}

function reply(text) {
  return text ? h('blockquote', { className: 'outcome-reply' }, text) : '';
}

/** Approve (the arguments as shown, edited or not) or deny one waiting call. */
function decisionCard(run, interruption, decide) {
  const name = interruption.toolName ?? 'input';
  const id = `inbox-args-${run.runId}-${interruption.id}`;
  const args = h('textarea', {
    id,
    rows: 4,
    spellcheck: 'false',
    className: 'args',
  });
  args.value = pretty(interruption.arguments);
  const problem = h('p', { className: 'error', role: 'alert' });
  const verdict = h('p', { className: 'verdict' });
  const approve = h(
    'button',
    { type: 'button', 'aria-label': `Approve ${name} for ${run.owner}` },
    'Approve',
  );
  const deny = h(
    'button',
    { type: 'button', 'aria-label': `Deny ${name} for ${run.owner}` },
    'Deny',
  );
  const lock = () => {
    for (const control of [approve, deny, args]) control.disabled = true;
  };
  approve.addEventListener('click', () => {
    let edited;
    try {
      edited = JSON.parse(args.value);
    } catch {
      problem.textContent = 'The arguments are not valid JSON.';
      args.focus();
      return;
    }
    const changed = pretty(edited) !== pretty(interruption.arguments);
    problem.textContent = '';
    verdict.textContent = `Approved${changed ? ' with edited arguments' : ''}.`;
    lock();
    decide({ id: interruption.id, status: 'approved', ...(changed ? { arguments: edited } : {}) });
  });
  deny.addEventListener('click', () => {
    problem.textContent = '';
    verdict.textContent = 'Denied.';
    lock();
    decide({ id: interruption.id, status: 'denied', message: 'An approver denied this call.' });
  });
  const element = h(
    'div',
    { className: 'decision', role: 'group', 'aria-label': `Call ${name}` },
    interruption.message ? h('p', {}, interruption.message) : '',
    h('label', { for: id }, `Arguments of ${name} (JSON, edit before approving if needed)`),
    args,
    problem,
    h('div', { className: 'buttons' }, approve, deny),
    verdict,
  );
  return { element, lock };
}
