// The conversation's DOM: every text goes in through textContent, never as HTML.

const log = () => document.getElementById('log');

/** One list item of the conversation, with an optional visible heading. */
export function item(kind, heading) {
  const li = document.createElement('li');
  li.className = kind;
  if (heading) {
    const title = document.createElement('strong');
    title.textContent = heading;
    li.append(title, document.createElement('br'));
  }
  log().append(li);
  li.scrollIntoView({ block: 'nearest' });
  return li;
}

/** A text span inside `li` that deltas append to. */
export function textOf(li) {
  let span = li.querySelector('.text');
  if (!span) {
    span = document.createElement('span');
    span.className = 'text';
    li.append(span);
  }
  return span;
}

export function pre(li, className, text) {
  const block = document.createElement('pre');
  block.className = className;
  block.textContent = text;
  li.append(block);
  return block;
}

export function clearLog() {
  log().replaceChildren();
}

/** A readable line for an error the page shows; `alert` also announces it at once. */
export function showError(text) {
  const box = document.getElementById('error');
  box.textContent = text;
  box.hidden = !text;
}

export function setStatus(text) {
  document.getElementById('status').textContent = text;
}

const pretty = (value) => JSON.stringify(value ?? {}, null, 2);

/**
 * A paused tool call waiting for a person: Approve, Deny, or edit the arguments and approve
 * them. `decide` gets the decision once; the card then says what was decided.
 */
export function approvalCard(interruption, decide) {
  const name = interruption.toolName ?? 'a tool';
  const li = item('approval', `Approve ${name}?`);
  li.setAttribute('aria-label', `Approval: ${name}`);
  if (interruption.message) textOf(li).textContent = interruption.message;
  const id = `args-${interruption.id}`;
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = 'Arguments (JSON, edit before approving if needed)';
  const args = document.createElement('textarea');
  args.id = id;
  args.rows = 4;
  args.value = pretty(interruption.arguments);
  const problem = document.createElement('p');
  problem.className = 'error';
  problem.setAttribute('role', 'alert');
  const buttons = document.createElement('div');
  const approve = button('Approve', () => {
    let edited;
    try {
      edited = JSON.parse(args.value);
    } catch {
      problem.textContent = 'The arguments are not valid JSON.';
      args.focus();
      return;
    }
    const changed = pretty(edited) !== pretty(interruption.arguments);
    done(`Approved${changed ? ' with edited arguments' : ''}.`);
    decide({
      id: interruption.id,
      status: 'approved',
      ...(changed ? { arguments: edited } : {}),
    });
  });
  const deny = button('Deny', () => {
    done('Denied.');
    decide({ id: interruption.id, status: 'denied', message: 'A person denied this call.' });
  });
  buttons.append(approve, deny);
  li.append(label, args, problem, buttons);
  const done = (text) => {
    for (const control of [approve, deny, args]) control.disabled = true;
    problem.textContent = '';
    const verdict = document.createElement('p');
    verdict.className = 'verdict';
    verdict.textContent = text;
    li.append(verdict);
  };
  return { li, focus: () => approve.focus(), settle: (text) => done(text) };
}

function button(text, onClick) {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = text;
  element.addEventListener('click', onClick);
  return element;
}
