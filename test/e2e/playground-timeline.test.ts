import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../lib/local/stack.js';
import { launchChromium, shot } from './helpers/browser.js';
import { type SlowModel, STORY, STORY_REASONING, startSlowModel } from './helpers/slow-model.js';

// A run's timeline and a reload mid-run, in headless Chromium at phone width against the local
// stack. The story's model stream is held after its first words until the test lets it go (a
// gate, not a guess), so "mid-run" is a state the test waits for.
let model: SlowModel;
let gate: Gate;
let stack: LocalStack;
let browser: Browser;
let page: Page;
let sessionId = '';
let bookingRun = '';

interface EventsPage {
  after: number;
  messages: { seq: number; events: { type: string; usage?: Record<string, number> }[] }[];
}

interface Gate {
  readonly url: string;
  /** Resolves once a held stream is waiting at the gate. */
  held: Promise<void>;
  open(): void;
  close(): Promise<void>;
}

/** A proxy that holds a story's stream after its third text delta until `open()`. */
async function startGate(upstream: string): Promise<Gate> {
  let release: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  let heldNow: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    heldNow = resolve;
  });
  const origin = new URL(upstream).origin;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const story = /tell me a story/i.test(body.toString());
      const answer = await fetch(`${origin}${req.url}`, {
        method: req.method ?? 'GET',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        ...(req.method === 'POST' ? { body } : {}),
      });
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      let deltas = 0;
      for await (const chunk of answer.body ?? []) {
        const text = Buffer.from(chunk as Uint8Array).toString();
        res.write(text);
        deltas += text.split('output_text.delta').length - 1;
        if (story && deltas >= 3) {
          heldNow();
          await opened;
        }
      }
      res.end();
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    held,
    open: () => release(),
    close: async () => {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

beforeAll(async () => {
  // 40 ms between streamed events (the slow model), then the gate in front of it.
  model = await startSlowModel(40);
  gate = await startGate(model.url);
  process.env.OPENAI_BASE_URL = gate.url;
  process.env.OPENAI_API_KEY = 'offline';
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  // Stored events are flushed only at a run's end (or pause): a reload mid-run then always finds
  // nothing of the running turn stored yet, the case the playground must still follow.
  process.env.EVENTS_FLUSH_MS = '60000';
  const { startLocalStack } = await import('../../lib/local/stack.js');
  stack = await startLocalStack();
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  page = await context.newPage();
  await page.goto(stack.playgroundUrl);
  await page.getByLabel('Token').fill(await stack.tokenFor('timeline-alice'));
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.getByText('Connected. Say something.').waitFor({ timeout: 30_000 });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await gate?.close();
  await model?.close();
  delete process.env.EVENTS_FLUSH_MS;
});

const log = () => page.getByRole('log', { name: 'Conversation' });

async function untilStatus(text: string): Promise<void> {
  await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toBe(text);
}

async function say(text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  await page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
}

async function noSeriousViolations(name: string) {
  const result = await new AxeBuilder({ page }).analyze();
  const serious = result.violations.filter((v) => ['serious', 'critical'].includes(v.impact ?? ''));
  expect(serious.map((v) => `${name}: ${v.id} ${v.help}`)).toEqual([]);
}

async function api(token: string, path: string) {
  const res = await fetch(`${stack.httpUrl}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as EventsPage };
}

describe('a run timeline and a reload mid-run, in Chromium', () => {
  it('draws a run with a tool call and a pause: durations, tokens, an estimated cost', async () => {
    // Prepare: a booking in the chat, approved from its card.
    await say('book a table for 2 at 8pm');
    const card = page.getByRole('listitem', { name: 'Approval: book_table' }).last();
    await untilStatus('Waiting for your decision.');
    await card.getByRole('button', { name: 'Approve' }).click();
    await untilStatus('Done.');
    sessionId = (await page.locator('#session-id').textContent()) ?? '';
    const saved = await page.evaluate("localStorage.getItem('agent-kernel.playground.session')");
    bookingRun = JSON.parse(String(saved)).runs[0].runId;

    // Act: the timeline's deep link, after a reload.
    await page.goto(`${stack.playgroundUrl}#/sessions/${sessionId}/runs/${bookingRun}/timeline`);
    await page.reload();
    await expect
      .poll(() => page.locator('#console-title').textContent(), { timeout: 15_000 })
      .toBe(`Timeline of run ${bookingRun}`);
    const items = page.getByRole('list', { name: 'Run timeline' }).getByRole('listitem');
    await items.first().waitFor({ timeout: 15_000 });

    // Assess: model call, the tool call paused, the decision, the call run, the answer.
    const labels = (await items.evaluateAll((els) =>
      els.map((el) => el.getAttribute('aria-label')),
    )) as string[];
    expect(labels.map((l) => l.replace(/^\d+\. /, '').replace(/, at .*$/, ''))).toEqual([
      'Model call',
      'Tool call book_table',
      'Paused for a decision',
      'Decision',
      'Model call',
      'Finished',
    ]);
    const tool = items.nth(1);
    expect(await tool.textContent()).toMatch(/ran · \d+ ms \(journal\)/);
    expect(await tool.textContent()).toContain('"confirmation"');
    expect(await items.nth(3).textContent()).toContain('book_table: approved');
    for (const n of [0, 4]) {
      expect(await items.nth(n).textContent()).toMatch(
        /\d+ in, \d+ out tokens · \$[\d.]+ \(estimate\)/,
      );
    }
    // The totals are the stored step usages, summed (read here from the events route).
    const token = await page.evaluate("localStorage.getItem('agent-kernel.playground.token')");
    let inputTokens = 0;
    let outputTokens = 0;
    // Page on past the pause (a page ends at a terminal event; the resume's seqs follow it).
    for (let after = -1; ; ) {
      const query = after < 0 ? '' : `?after=${after}`;
      const page = (
        await api(String(token), `/sessions/${sessionId}/runs/${bookingRun}/events${query}`)
      ).body;
      if (page.messages.length === 0) break;
      for (const m of page.messages) {
        for (const e of m.events) {
          if (e.type !== 'step-end') continue;
          inputTokens += e.usage?.inputTokens ?? 0;
          outputTokens += e.usage?.outputTokens ?? 0;
        }
      }
      after = page.after;
    }
    expect(inputTokens).toBeGreaterThan(0);
    const totals = await page.getByRole('definition').allTextContents();
    expect(totals).toContain(`${inputTokens} in, ${outputTokens} out`);
    expect(totals.at(-1)).toMatch(/^\$[\d.]+ \(estimate\)$/);
    expect(await page.locator('.pricing').textContent()).toContain('estimate at gpt-4.1-mini');

    // Act: the tool call's raw events, from the keyboard.
    await page
      .getByRole('group')
      .filter({ hasText: 'Raw events' })
      .nth(1)
      .locator('summary')
      .focus();
    await page.keyboard.press('Enter');
    const raw = tool.locator('details pre');
    await expect.poll(() => raw.textContent(), { timeout: 15_000 }).toContain('tool-call-result');

    // Assess
    const events = JSON.parse((await raw.textContent()) ?? '[]') as { type: string }[];
    expect(events.map((e) => e.type)).toContain('tool-call-start');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await noSeriousViolations('timeline');
    await shot(page, 'timeline-1-booking');
  }, 90_000);

  it('a reload mid-run shows the rest of the run, and after it the tool calls and approvals', async () => {
    // Prepare: the story starts and its stream is held after its first words.
    await page.goto(`${stack.playgroundUrl}#/`);
    await say('tell me a story');
    await gate.held;
    await page.locator('li.assistant').last().filter({ hasText: 'Once' }).waitFor();

    // Act: reload while the run is held, then let the model go on.
    await page.reload();
    await untilStatus('Reloaded mid-run: following the rest of it…');
    gate.open();
    await untilStatus('Done.');

    // Assess: the story once, whole; the booking's tool card and its decided approval.
    const answers = await log().locator('li.assistant').allTextContents();
    expect(answers.at(-1)).toBe(STORY);
    await shot(page, 'timeline-2-after-mid-run-reload');
    await page.reload();
    await untilStatus('Done.');
    const toolCard = log().locator('li.tool', { hasText: 'Tool call: book_table' });
    expect(await toolCard.textContent()).toContain('T-');
    const approval = page.getByRole('listitem', { name: 'Approval: book_table' });
    // The verdict comes from the run's timeline, read after the turn's events.
    await expect
      .poll(() => approval.textContent(), { timeout: 15_000 })
      .toContain('Approved: the call ran.');
    expect(await approval.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
    expect(await log().locator('li.reasoning').textContent()).toContain(STORY_REASONING);
    expect((await log().locator('li.assistant').allTextContents()).at(-1)).toBe(STORY);
    await shot(page, 'timeline-3-history-restored');
  }, 90_000);

  it("says not found for another principal's timeline, and fetches nothing of it", async () => {
    // Prepare: Mallory's own page.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const other = await context.newPage();
    await other.goto(stack.playgroundUrl);
    await other.getByLabel('Token').fill(await stack.tokenFor('timeline-mallory'));
    await other.getByRole('button', { name: 'Connect' }).click();
    await other.getByText('Connected. Say something.').waitFor({ timeout: 30_000 });
    const requests: Request[] = [];
    const notFound = () =>
      expect
        .poll(() => other.locator('#console-title').textContent(), { timeout: 15_000 })
        .toBe('Not found');
    await other.goto(`${stack.playgroundUrl}#/sessions/${sessionId}/runs/${bookingRun}/timeline`);
    // The first load settles before the count starts: only the reload's requests are counted.
    await notFound();
    other.on('request', (r) => requests.push(r));

    // Act
    await other.reload();
    await notFound();

    // Assess
    const text = await other.locator('#console').textContent();
    expect(text).toContain('was not found');
    expect(text).not.toMatch(/book|table|8pm/i);
    const naming = requests.filter(
      (r) => r.url().startsWith(stack.httpUrl) && r.url().includes(bookingRun),
    );
    expect(naming.map((r) => `${r.method()} ${new URL(r.url()).pathname}`)).toEqual([
      `GET /sessions/${sessionId}/runs/${bookingRun}/timeline`,
    ]);
    expect((await naming[0]?.response())?.status()).toBe(404);
    await shot(other, 'timeline-4-not-found');
    await context.close();
  }, 60_000);
});
