// The playground: the public HTTP API (agents, session, run records) and the WebSocket API (run,
// resume, the run's events), as any client uses them. No framework, no build step.
import { api, config, refusal, TOKEN_KEY, token } from './api.js';
import { route } from './console.js';
import { restoreTurn } from './restore.js';
import { approvalCard, clearLog, item, pre, setStatus, showError, textOf } from './view.js';
import { watchPause } from './watch.js';

const SESSION_KEY = 'agent-kernel.playground.session';

const $ = (id) => document.getElementById(id);
const state = {
  socket: undefined,
  /** `${runId}:${seq}` already shown: queues deliver at least once. */
  seen: new Set(),
  /** requestId → the input it sent, until `accepted` names its run. */
  sent: new Map(),
  /** runId → decisions so far of its pause, and how many it needs. */
  pauses: new Map(),
  parts: new Map(),
};

/** The session this page talks in, kept across reloads: `{ sessionId, runs: [{runId, input}] }`. */
function session() {
  try {
    return JSON.parse(localStorage.getItem(SESSION_KEY) ?? 'null');
  } catch {
    return null;
  }
}

function saveSession(value) {
  if (value) localStorage.setItem(SESSION_KEY, JSON.stringify(value));
  else localStorage.removeItem(SESSION_KEY);
  $('session-id').textContent = value?.sessionId ?? 'none yet';
}

async function connect() {
  showError('');
  state.socket?.close();
  $('send').disabled = true;
  setStatus('Checking the token…');
  let agents;
  try {
    agents = await api('/agents');
  } catch {
    setStatus('Not connected.');
    showError(`Cannot reach the API at ${config.httpUrl}. Is the stack running?`);
    return;
  }
  if (agents.status !== 200) {
    setStatus('Not connected.');
    showError(refusal(agents.status, agents.body));
    return;
  }
  fillAgents(agents.body.agents ?? []);
  openSocket();
  await showHistory();
}

function fillAgents(cards) {
  const select = $('agent');
  select.replaceChildren(
    ...cards.map((card) => {
      const option = document.createElement('option');
      option.value = card.name;
      option.textContent = card.description ? `${card.name}: ${card.description}` : card.name;
      return option;
    }),
  );
  select.disabled = cards.length === 0;
}

function openSocket() {
  const socket = new WebSocket(`${config.wsUrl}?token=${encodeURIComponent(token())}`);
  state.socket = socket;
  let opened = false;
  socket.addEventListener('open', () => {
    opened = true;
    $('send').disabled = false;
    setStatus('Connected. Say something.');
  });
  socket.addEventListener('message', (frame) => onMessage(JSON.parse(frame.data)));
  socket.addEventListener('close', () => {
    if (state.socket !== socket) return;
    $('send').disabled = true;
    setStatus('Not connected.');
    showError(
      opened
        ? 'The connection closed. Press Connect to reconnect.'
        : 'The WebSocket API refused the connection (is the token still valid?).',
    );
  });
}

function onMessage(message) {
  if (message.type === 'accepted') {
    const input = state.sent.get(message.requestId);
    if (input === undefined) return;
    state.sent.delete(message.requestId);
    const current = session() ?? { sessionId: message.sessionId, runs: [] };
    current.runs.push({ runId: message.runId, input });
    saveSession(current);
    return;
  }
  if (message.type === 'error') {
    setStatus('Refused.');
    showError(`${message.message} (${message.code})`);
    return;
  }
  if (message.type !== 'events') return;
  // A void marker (`from` set) takes a seq no attempt sent: (run, seq) keys it like any message.
  const key = `${message.runId}:${message.seq}`;
  if (state.seen.has(key)) return;
  state.seen.add(key);
  for (const event of message.events) onEvent(message.sessionId, event);
}

function part(kind, id, heading) {
  const key = `${kind}:${id}`;
  let li = state.parts.get(key);
  if (!li) {
    li = item(state.restoring ? `${kind} history` : kind, heading);
    state.parts.set(key, li);
  }
  return li;
}

function onEvent(sessionId, event) {
  switch (event.type) {
    case 'run-started':
      return setStatus('Streaming…');
    case 'message-start':
      return void part('assistant', event.messageId);
    case 'text-delta':
      textOf(part('assistant', event.messageId)).textContent += event.delta;
      return;
    case 'reasoning-start':
      return void part('reasoning', event.reasoningId, 'Reasoning');
    case 'reasoning-delta':
      textOf(part('reasoning', event.reasoningId, 'Reasoning')).textContent += event.delta;
      return;
    case 'tool-call-start':
      return void pre(part('tool', event.toolCallId, `Tool call: ${event.toolName}`), 'args', '');
    case 'tool-call-args': {
      const li = part('tool', event.toolCallId, 'Tool call');
      const args = li.querySelector('.args') ?? pre(li, 'args', '');
      args.textContent += event.delta;
      return;
    }
    case 'tool-call-result': {
      const li = part('tool', event.toolCallId, 'Tool call');
      const result = typeof event.result === 'string' ? event.result : JSON.stringify(event.result);
      pre(li, 'result', `${event.isError ? 'Error: ' : '→ '}${result}`);
      return;
    }
    case 'run-paused':
      return showPause(sessionId, event.runId, event.interruptions);
    case 'run-finished':
      return setStatus('Done.');
    case 'run-retrying':
      // Not the end: the run's next attempt sends its terminal event.
      return setStatus(`Retrying (${event.code})…`);
    case 'run-error':
      setStatus('The run failed.');
      item('error', 'Error').append(`${event.message} (${event.code})`);
      return;
  }
}

function showPause(sessionId, runId, interruptions) {
  setStatus('Waiting for your decision.');
  const pause = { sessionId, needed: interruptions.length, decisions: [] };
  state.pauses.set(runId, pause);
  const cards = interruptions.map((interruption) =>
    approvalCard(interruption, (decision) => {
      pause.decisions.push(decision);
      if (pause.decisions.length === pause.needed) resume(runId, pause);
    }),
  );
  cards[0]?.focus();
  watchPause(sessionId, runId, {
    open: () => state.pauses.get(runId) === pause,
    onMoved: () => {
      state.pauses.delete(runId);
      for (const card of cards) card.settle('Decided elsewhere (an approver, or another page).');
      setStatus('Decided elsewhere: the run resumes…');
    },
    onEnded: (record) => {
      if (record.reply?.text) item('assistant').textContent = record.reply.text;
      if (record.error)
        item('error', 'Error').append(`${record.error.message} (${record.error.code})`);
      setStatus('Done.');
    },
  });
}

function resume(runId, pause) {
  state.pauses.delete(runId);
  setStatus('Resuming…');
  send({
    action: 'resume',
    requestId: crypto.randomUUID(),
    sessionId: pause.sessionId,
    runId,
    decisions: pause.decisions,
  });
}

function send(message) {
  if (state.socket?.readyState !== WebSocket.OPEN) {
    showError('Not connected: press Connect first.');
    return false;
  }
  state.socket.send(JSON.stringify(message));
  return true;
}

function submitMessage() {
  const input = $('message').value.trim();
  if (!input) return;
  showError('');
  const current = session() ?? { sessionId: `play-${crypto.randomUUID()}`, runs: [] };
  saveSession(current);
  const requestId = crypto.randomUUID();
  const message = {
    action: 'run',
    requestId,
    agent: $('agent').value,
    sessionId: current.sessionId,
    input,
  };
  if (!send(message)) return;
  state.sent.set(requestId, input);
  item('user').textContent = input;
  $('message').value = '';
  setStatus('Sent.');
}

/** The stored session's turns, from the API: each one's input and outcome (reply, or pause). */
async function showHistory() {
  const current = session();
  clearLog();
  state.parts.clear();
  if (!current) return;
  $('session-id').textContent = current.sessionId;
  const id = encodeURIComponent(current.sessionId);
  const summary = await api(`/sessions/${id}`);
  if (summary.status === 404) {
    saveSession(null);
    setStatus('The stored session is gone (cleared or expired): a new one starts.');
    return;
  }
  if (summary.status !== 200) return showError(refusal(summary.status, summary.body));
  const paused = new Set((summary.body.paused ?? []).map((p) => p.runId));
  for await (const turn of turnsOf(id)) {
    if (turn.error === 'refused') return showError(refusal(turn.status, turn.body));
    const { input } = turn;
    if (input !== undefined) {
      item('user history').textContent = typeof input === 'string' ? input : JSON.stringify(input);
    }
    await restore(current.sessionId, turn, paused.has(turn.runId));
  }
}

/** A turn from its stored events (tool cards, reasoning, approvals); else from its record. */
async function restore(sessionId, turn, stillPaused) {
  const show = (event) => onEvent(sessionId, event);
  state.restoring = true;
  const options = { show, seen: state.seen, stillPaused, status: setStatus };
  const restored = await restoreTurn(sessionId, turn, options).finally(() => {
    state.restoring = false;
  });
  // A run still going is followed even when nothing of it is stored yet (events are stored
  // behind delivery, up to EVENTS_FLUSH_MS later).
  if (restored.follow) return void restored.follow();
  if (restored.shown === 0) return showRecord(sessionId, turn, stillPaused);
  if (!restored.text && turn.reply?.text) item('assistant history').textContent = turn.reply.text;
}

/** Every turn of the session, page by page (`GET /sessions/{id}/turns`), oldest first. */
async function* turnsOf(id) {
  let cursor;
  do {
    const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page = await api(`/sessions/${id}/turns?limit=100${query}`);
    if (page.status !== 200) {
      yield { error: 'refused', status: page.status, body: page.body };
      return;
    }
    yield* page.body.turns;
    cursor = page.body.next;
  } while (cursor);
}

function showRecord(sessionId, turn, stillPaused) {
  const { status, reply, error, runId } = turn;
  if (reply?.text) item('assistant history').textContent = reply.text;
  if (status === 'failed' && error) {
    item('error history', 'Error').append(`${error.message} (${error.code})`);
  } else if (status === 'paused' && stillPaused) {
    showPause(sessionId, runId, reply.interruptions);
  } else if (status === 'queued' || status === 'running') {
    item('assistant history').textContent = `(this run is ${status}: reload later)`;
  }
}

async function start() {
  const res = await fetch('playground/config.json').catch(() => undefined);
  if (!res?.ok) return showError('This page has no configuration (playground/config.json).');
  Object.assign(config, await res.json());
  $('token').value = localStorage.getItem(TOKEN_KEY) ?? '';
  $('session-id').textContent = session()?.sessionId ?? 'none yet';
  $('settings').addEventListener('submit', (event) => {
    event.preventDefault();
    localStorage.setItem(TOKEN_KEY, $('token').value.trim());
    void connect().then(() => route(chat));
  });
  $('new-session').addEventListener('click', () => {
    saveSession(null);
    clearLog();
    state.parts.clear();
    setStatus('New session: say something.');
    $('message').focus();
  });
  $('composer').addEventListener('submit', (event) => {
    event.preventDefault();
    submitMessage();
  });
  $('message').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      submitMessage();
    }
  });
  window.addEventListener('hashchange', () => void route(chat));
  if ($('token').value) await connect();
  await route(chat);
}

/** What the console views ask of the chat: the runs it knows, and which session it talks in. */
const chat = {
  open: (sessionId) => {
    if (session()?.sessionId !== sessionId) saveSession({ sessionId, runs: [] });
    location.hash = '#/';
    void showHistory();
  },
  forget: (sessionId) => {
    if (session()?.sessionId === sessionId) saveSession(null);
  },
};

void start();
