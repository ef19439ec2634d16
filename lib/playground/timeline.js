// A run's timeline (GET /sessions/{id}/runs/{runId}/timeline): each model call, tool call, pause
// and decision on a time axis, with tokens and an estimated cost; each item's raw stored events
// one click away (GET …/events, fetched when opened). Every figure is in text; bars are a picture.
import { api, enc, refusal } from './api.js';
import { duration, facts, h, time } from './dom.js';
import { pages } from './restore.js';
import { links } from './router.js';

const usd = (value) =>
  typeof value === 'number' ? `$${value < 0.01 ? value.toFixed(6) : value.toFixed(4)}` : '—';

export async function timelineView(view, { sessionId, runId }) {
  view.title(`Timeline of run ${runId}`);
  const answer = await api(`/sessions/${enc(sessionId)}/runs/${enc(runId)}/timeline`);
  if (answer.status === 404) return view.notFound(`Run "${runId}" of session "${sessionId}"`);
  if (answer.status !== 200) return view.problem(refusal(answer.status, answer.body));
  const timeline = answer.body;
  const { run, totals, pricing } = timeline;
  const span = Math.max(1, timeline.endedAt - timeline.startedAt);
  const price = `${pricing.model}: $${pricing.inputPerMillion} in / $${pricing.outputPerMillion} out per 1M tokens`;
  view.body.append(
    h('p', {}, h('a', { href: links.run(sessionId, runId) }, 'Back to the run')),
    facts(
      [
        ['Status', run.status],
        ['Agent', run.agent],
        ['Started', time(timeline.startedAt)],
        ['Took', duration(timeline.endedAt - timeline.startedAt)],
        ['Model calls', String(totals.modelCalls)],
        [
          'Tool calls',
          `${totals.toolCalls}${totals.replayedCalls ? ` (${totals.replayedCalls} replayed)` : ''}`,
        ],
        ['Tokens', `${totals.inputTokens} in, ${totals.outputTokens} out`],
        ['Estimated cost', `${usd(totals.costUsd)} (estimate)`],
      ],
      'Run totals',
    ),
    h('p', { className: 'pricing' }, `Cost is an estimate at ${price} (${pricing.source}).`),
    timeline.truncated ? h('p', {}, 'This run is long: only its first events are shown.') : '',
    ['queued', 'running'].includes(run.status)
      ? h('p', { role: 'status' }, 'This run is still going: reload to see what it did since.')
      : '',
  );
  if (timeline.items.length === 0) {
    view.body.append(h('p', {}, 'No stored events for this run (a synchronous run keeps none).'));
    return;
  }
  const raw = rawEvents(sessionId, runId);
  view.body.append(
    h(
      'ol',
      { className: 'timeline', 'aria-label': 'Run timeline' },
      timeline.items.map((item, index) => row(item, index, timeline.startedAt, span, raw)),
    ),
  );
}

function row(item, index, start, span, raw) {
  const offset = `+${duration(item.startAt - start)}`;
  const { title, lines } = describe(item, start);
  const bar = h('span', { className: 'bar' });
  // CSSOM, not a style attribute: the page's CSP allows no inline styles.
  bar.style.marginInlineStart = `${((item.startAt - start) / span) * 100}%`;
  bar.style.width = `${Math.max(0.5, (item.durationMs / span) * 100)}%`;
  const label = `${index + 1}. ${title}, at ${offset}`;
  return h(
    'li',
    { className: `item kind-${item.kind}`, 'aria-label': label },
    h('div', { className: 'axis', 'aria-hidden': 'true' }, bar),
    h('strong', {}, title),
    h('span', { className: 'meta' }, ` at ${offset}`),
    lines.map((line) => (typeof line === 'string' ? h('p', {}, line) : line)),
    raw(item, title),
  );
}

function describe(item, start) {
  switch (item.kind) {
    case 'model': {
      const usage = item.usage
        ? `${item.usage.inputTokens} in, ${item.usage.outputTokens} out tokens · ${usd(item.costUsd)} (estimate)`
        : 'no token usage reported';
      return {
        title: 'Model call',
        lines: [`${duration(item.durationMs)} · ${usage}`, item.text ? `“${item.text}”` : ''],
      };
    }
    case 'tool': {
      const how = item.replayed
        ? 'replayed from the journal'
        : item.journal
          ? 'ran'
          : 'ran (not journaled)';
      const took = `${duration(item.durationMs)} (${item.timing === 'journal' ? 'journal' : 'event times'})`;
      return {
        title: `Tool call ${item.toolName}`,
        lines: [
          `${how} · ${took}${item.isError ? ' · failed' : ''}`,
          item.requestedAt === undefined
            ? ''
            : `requested at +${duration(item.requestedAt - start)}`,
          labelled('Arguments', item.arguments),
          item.result === undefined ? 'No result yet.' : labelled('Result', item.result),
        ],
      };
    }
    case 'pause':
      return {
        title: 'Paused for a decision',
        lines: item.interruptions.map(
          (i) => `${i.toolName ?? 'input'}: ${JSON.stringify(i.arguments ?? {})}`,
        ),
      };
    case 'decision':
      return {
        title: 'Decision',
        lines: [
          `after ${duration(item.durationMs)} waiting`,
          ...item.decisions.map((d) => `${d.toolName ?? d.id}: ${d.outcome}`),
        ],
      };
    case 'retry':
      return { title: 'Retrying', lines: [`${item.message} (${item.code})`] };
    case 'error':
      return { title: 'Failed', lines: [`${item.message} (${item.code})`] };
    default:
      return { title: 'Finished', lines: [] };
  }
}

function labelled(name, value) {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null, null, 2);
  // Focusable: a long value scrolls inside its box, and keyboard users must be able to scroll it.
  return h(
    'div',
    {},
    h('span', { className: 'label' }, name),
    h('pre', { tabindex: '0', 'aria-label': name }, text),
  );
}

/** An item's raw events: its stored messages' events that belong to it, read when opened. */
function rawEvents(sessionId, runId) {
  return (item, title) => {
    const body = h('pre', { tabindex: '0', 'aria-label': `Raw events of ${title}` }, 'Loading…');
    const details = h(
      'details',
      { className: 'raw' },
      h(
        'summary',
        { 'aria-label': `Raw events of ${title}` },
        `Raw events (seq ${item.seqs.from}–${item.seqs.to})`,
      ),
      body,
    );
    let loaded = false;
    details.addEventListener('toggle', async () => {
      if (!details.open || loaded) return;
      loaded = true;
      const path = `/sessions/${enc(sessionId)}/runs/${enc(runId)}/events`;
      const page = await pages(path, item.seqs.from - 1, item.seqs.to);
      if (page.failed) {
        body.textContent = refusal(page.failed.status, page.failed.body);
        return;
      }
      const events = page.messages
        .filter((m) => m.seq <= item.seqs.to)
        .flatMap((m) =>
          m.events.filter((e) => belongs(item, e)).map((e) => ({ seq: m.seq, ...e })),
        );
      body.textContent = JSON.stringify(events, null, 2);
    });
    return details;
  };
}

function belongs(item, event) {
  if (item.kind === 'tool') return event.toolCallId === item.callId;
  if (item.kind === 'model') return event.stepId === item.stepId || 'messageId' in event;
  if (item.kind === 'pause') return event.type === 'run-paused';
  if (item.kind === 'decision') return event.type === 'run-started';
  return ['run-retrying', 'run-error', 'run-finished'].includes(event.type);
}
