// The caller's usage (GET /usage): today's counters against its limits, tokens per day.
import { api, refusal } from './api.js';
import { facts, h } from './dom.js';

const COUNTERS = [
  ['runsInFlight', 'runsInFlight', 'Runs in flight'],
  ['runsThisMinute', 'runsPerMinute', 'Runs this minute'],
  ['connections', 'connections', 'Open connections'],
];

export async function usageView(view) {
  view.title('Usage');
  const answer = await api('/usage');
  if (answer.status === 404) {
    return view.problem('This deployment counts no usage (fair use is off).');
  }
  if (answer.status !== 200) return view.problem(refusal(answer.status, answer.body));
  const usage = answer.body;
  const limits = usage.limits ?? {};
  const today = usage.days?.[0];
  view.body.append(
    facts(
      [
        ['Principal', usage.principal],
        ['Tokens today', String(usage.tokensToday ?? 0)],
        ['Runs today', String(today?.runs ?? 0)],
      ],
      'Usage today',
    ),
    h('h3', {}, 'Limits'),
    h(
      'ul',
      { className: 'meters', 'aria-label': 'Counters and limits' },
      COUNTERS.map(([key, limitKey, label]) => counter(label, usage[key] ?? 0, limits[limitKey])),
    ),
    h('h3', { id: 'tokens-chart' }, 'Tokens per day'),
    chart(usage.days ?? []),
  );
}

function counter(label, value, limit) {
  const text = limit === undefined ? `${value} (no limit)` : `${value} of ${limit}`;
  return h(
    'li',
    {},
    h('span', {}, `${label}: ${text}`),
    limit === undefined
      ? ''
      : h('meter', { min: 0, max: limit, value, 'aria-label': `${label}: ${text}` }),
  );
}

/** One bar per day (newest first), a <progress> scaled to the busiest day, with its numbers. */
function chart(days) {
  if (days.length === 0) return h('p', {}, 'No tokens used yet.');
  const tokens = (d) => (d.inputTokens ?? 0) + (d.outputTokens ?? 0);
  const max = Math.max(1, ...days.map(tokens));
  return h(
    'ol',
    { className: 'chart', 'aria-labelledby': 'tokens-chart' },
    days.map((d) => {
      const text = `${d.day}: ${tokens(d)} tokens (${d.inputTokens ?? 0} in, ${d.outputTokens ?? 0} out), ${d.runs ?? 0} runs`;
      return h(
        'li',
        {},
        h('span', {}, text),
        h('progress', { max, value: tokens(d), 'aria-label': text }),
      );
    }),
  );
}
