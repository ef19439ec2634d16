// The console around the chat: the hash names the view; each view renders into #console.
import { token } from './api.js';
import { h } from './dom.js';
import { inboxView } from './inbox.js';
import { parseRoute } from './router.js';
import { runView } from './run-view.js';
import { sessionsView, sessionView } from './sessions.js';
import { usageView } from './usage.js';

const VIEWS = {
  sessions: sessionsView,
  session: sessionView,
  run: runView,
  usage: usageView,
  inbox: inboxView,
};

let rendering = 0;

/** Shows the view the URL names: the chat, or a console view (fetched fresh each time). */
export async function route(chat) {
  const current = parseRoute(location.hash);
  const chatView = document.getElementById('chat');
  const section = document.getElementById('console');
  for (const link of document.querySelectorAll('nav a')) {
    const here = link.dataset.view === current.view || link.dataset.views?.includes(current.view);
    if (here) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  chatView.hidden = current.view !== 'chat';
  section.hidden = current.view === 'chat';
  if (current.view === 'chat') return;
  const mine = ++rendering;
  const heading = h('h2', { id: 'console-title', tabindex: '-1' });
  const body = h('div', { className: 'view-body' });
  section.replaceChildren(heading, body);
  const view = {
    body,
    title: (text) => {
      heading.textContent = text;
    },
    notFound: (what) => {
      heading.textContent = 'Not found';
      body.replaceChildren(
        h(
          'p',
          { className: 'not-found' },
          `${what} was not found: it is not yours, or it was cleared or has expired.`,
        ),
      );
    },
    problem: (text) => body.replaceChildren(h('p', { className: 'error', role: 'alert' }, text)),
  };
  // Focus follows the view, so a screen reader announces where the link led.
  heading.focus();
  if (!token()) return view.problem('Paste a token and press Connect first.');
  if (current.view === 'missing') return view.notFound(`The page "${location.hash}"`);
  try {
    // A newer navigation replaced the section: an older view's late answer lands nowhere seen.
    await VIEWS[current.view](view, current, chat);
  } catch {
    if (mine === rendering) view.problem('Cannot reach the API. Is the stack running?');
  }
}
