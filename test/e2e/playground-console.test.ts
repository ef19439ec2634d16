import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../lib/local/stack.js';
import { launchChromium, shot } from './helpers/browser.js';
import { type SlowModel, startSlowModel } from './helpers/slow-model.js';

// The console views of the playground in headless Chromium at phone width, against the local
// stack: sessions, one session, one run, usage, deep links across reloads, another's links.
let model: SlowModel;
let stack: LocalStack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let alice: string;
let mallory: string;
const runs: Record<string, string> = {};

async function post(token: string, sessionId: string, input: string) {
  const res = await fetch(`${stack.httpUrl}/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'demo', sessionId, input }),
  });
  const body = (await res.json()) as { runId: string; status: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  runs[sessionId] = body.runId;
  return body;
}

beforeAll(async () => {
  model = await startSlowModel(1);
  process.env.OPENAI_BASE_URL = model.url;
  process.env.OPENAI_API_KEY = 'offline';
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  const { startLocalStack } = await import('../../lib/local/stack.js');
  stack = await startLocalStack();
  alice = await stack.tokenFor('console-alice');
  mallory = await stack.tokenFor('console-mallory');
  // Alice's two sessions (one with a tool call), Mallory's paused booking.
  await post(alice, 'console-a1', 'weather in Paris?');
  await post(alice, 'console-a2', 'weather in Oslo?');
  expect((await post(mallory, 'console-m1', 'book a table for 2 at 8pm')).status).toBe('paused');
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  page = await context.newPage();
  await page.goto(stack.playgroundUrl);
  await page.getByLabel('Token').fill(alice);
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.getByText('Connected. Say something.').waitFor({ timeout: 30_000 });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await model?.close();
});

const heading = () => page.locator('#console-title');
const sessionLinks = () =>
  page.getByRole('list', { name: 'Your sessions' }).getByRole('link').allTextContents();

async function untilHeading(text: string) {
  await expect.poll(() => heading().textContent(), { timeout: 15_000 }).toBe(text);
}

async function noSeriousViolations(name: string) {
  const result = await new AxeBuilder({ page }).analyze();
  const serious = result.violations.filter((v) => ['serious', 'critical'].includes(v.impact ?? ''));
  expect(serious.map((v) => `${name}: ${v.id} ${v.help}`)).toEqual([]);
}

async function fitsPhone() {
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
}

describe('the playground console in Chromium', () => {
  it('lists my two sessions, newest first, reached from the keyboard', async () => {
    // Act: Tab to the Sessions link and follow it with Enter.
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.getByRole('link', { name: 'Sessions' }).focus();
    await page.keyboard.press('Enter');
    await untilHeading('Sessions');
    await expect.poll(sessionLinks, { timeout: 15_000 }).toEqual(['console-a2', 'console-a1']);

    // Assess
    expect(page.url()).toBe(`${stack.playgroundUrl}#/sessions`);
    expect(await page.evaluate('document.activeElement?.id')).toBe('console-title');
    const current = nav.getByRole('link', { name: 'Sessions' });
    expect(await current.getAttribute('aria-current')).toBe('page');
    await fitsPhone();
    await noSeriousViolations('sessions');
    await shot(page, 'console-1-sessions');
  }, 60_000);

  it('opens a session and a run by deep link after a reload', async () => {
    // Act: a session's link, then a reload of that URL.
    await page.getByRole('link', { name: 'console-a1' }).click();
    await untilHeading('Session console-a1');
    await page.reload();
    await untilHeading('Session console-a1');

    // Assess
    // The heading comes first; the summary and the turns follow their own fetches.
    const summary = page.getByRole('definition');
    await expect
      .poll(() => summary.allTextContents(), { timeout: 15_000 })
      .toEqual(expect.arrayContaining(['demo', '1']));
    const turns = page.getByRole('list', { name: 'Turns of this session' }).getByRole('link');
    await expect
      .poll(() => turns.allTextContents(), { timeout: 15_000 })
      .toEqual(['weather in Paris?']);
    await noSeriousViolations('session');
    await shot(page, 'console-2-session-after-reload');

    // Act: the run's own URL, opened fresh.
    const runUrl = `${stack.playgroundUrl}#/sessions/console-a1/runs/${runs['console-a1']}`;
    await page.goto(runUrl);
    await page.reload();
    await untilHeading(`Run ${runs['console-a1']}`);
    await expect
      .poll(() => page.locator('.reply').textContent(), { timeout: 15_000 })
      .toMatch(/Paris/);
    expect(await page.locator('p.input').textContent()).toBe('weather in Paris?');
    await page.getByText('Raw run record').click();

    // Assess
    expect(await page.locator('.facts').first().textContent()).toContain('completed');
    const rawRecord = JSON.parse((await page.locator('.raw pre').textContent()) ?? '{}');
    expect(rawRecord).toMatchObject({ runId: runs['console-a1'], status: 'completed' });
    expect(rawRecord.owner).toBeUndefined();
    await fitsPhone();
    await noSeriousViolations('run');
    await shot(page, 'console-3-run-after-reload');
  }, 60_000);

  it("says not found for another principal's session and run, and fetches nothing of them", async () => {
    // Prepare: every request the page makes while it loads each link afresh (a reload).
    const requests: Request[] = [];
    const listener = (request: Request) => requests.push(request);
    const opened = async (url: string) => {
      await page.goto(url);
      await untilHeading('Not found');
      page.on('request', listener);
      await page.reload();
      await untilHeading('Not found');
      page.off('request', listener);
      return page.locator('#console').textContent();
    };

    // Act
    const sessionText = await opened(`${stack.playgroundUrl}#/sessions/console-m1`);
    const runText = await opened(
      `${stack.playgroundUrl}#/sessions/console-m1/runs/${runs['console-m1']}`,
    );

    // Assess: the only requests naming them are the two reads, each answered 404.
    expect(sessionText).toContain('Session "console-m1" was not found');
    expect(runText).toContain('was not found');
    expect(`${sessionText}${runText}`).not.toMatch(/book|table|8pm/i);
    const naming = requests.filter(
      (r) => r.url().includes('console-m1') && r.url().startsWith(stack.httpUrl),
    );
    const paths = naming.map((r) => `${r.method()} ${new URL(r.url()).pathname}`);
    expect(paths).toEqual([
      'GET /sessions/console-m1',
      `GET /sessions/console-m1/runs/${runs['console-m1']}`,
    ]);
    for (const request of naming) expect((await request.response())?.status()).toBe(404);
    await noSeriousViolations('not-found');
    await shot(page, 'console-4-not-found');
  }, 60_000);

  it('shows the usage of today after three runs, as a small chart', async () => {
    // Prepare: a third run of alice's.
    await post(alice, 'console-a3', 'weather in Rome?');

    // Act
    await page.goto(`${stack.playgroundUrl}#/usage`);
    await page.reload();
    await untilHeading('Usage');
    await page.getByRole('list', { name: 'Tokens per day' }).waitFor({ timeout: 15_000 });

    // Assess
    const facts = await page.getByRole('definition').allTextContents();
    expect(facts[0]).toBe('console-alice');
    expect(facts[2]).toBe('3');
    expect(Number(facts[1])).toBeGreaterThan(0);
    const bars = page.getByRole('list', { name: 'Tokens per day' }).getByRole('listitem');
    expect(await bars.count()).toBe(1);
    expect(await bars.first().textContent()).toMatch(/ 3 runs$/);
    expect(await page.getByRole('progressbar').count()).toBe(1);
    await fitsPhone();
    await noSeriousViolations('usage');
    await shot(page, 'console-5-usage');
  }, 60_000);

  it("continues a session in the chat: its turns come back from the API's turns route", async () => {
    // Act: a session this page never talked in.
    await page.goto(`${stack.playgroundUrl}#/sessions/console-a1`);
    await untilHeading('Session console-a1');
    await page.getByRole('button', { name: 'Continue in the chat' }).click();
    const log = page.getByRole('log', { name: 'Conversation' });
    await log.locator('li.assistant.history').first().waitFor({ timeout: 15_000 });

    // Assess
    expect(await page.locator('#session-id').textContent()).toBe('console-a1');
    expect(await log.locator('li.user.history').allTextContents()).toEqual(['weather in Paris?']);
    expect(await log.locator('li.assistant.history').first().textContent()).toMatch(/Paris/);
    expect(await page.locator('#console').isHidden()).toBe(true);
  }, 60_000);

  it('clears a session from its page: it leaves the list', async () => {
    // Act
    await page.goto(`${stack.playgroundUrl}#/sessions/console-a2`);
    await untilHeading('Session console-a2');
    await page.getByRole('button', { name: 'Clear this session' }).click();
    await untilHeading('Sessions');

    // Assess
    await expect.poll(sessionLinks, { timeout: 15_000 }).toEqual(['console-a3', 'console-a1']);
    const gone = await fetch(`${stack.httpUrl}/sessions/console-a2`, {
      headers: { authorization: `Bearer ${alice}` },
    });
    expect(gone.status).toBe(404);
  }, 60_000);

  it('lists a session the chat started over the WebSocket, newest first', async () => {
    // Act: a new session in the chat, one message.
    await page.goto(`${stack.playgroundUrl}#/`);
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('weather in Lima?');
    await page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
    await page.getByText('Done.').waitFor({ timeout: 30_000 });
    const sessionId = await page.locator('#session-id').textContent();
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Sessions' })
      .click();
    await untilHeading('Sessions');

    // Assess
    await expect
      .poll(sessionLinks, { timeout: 15_000 })
      .toEqual([sessionId, 'console-a3', 'console-a1']);
  }, 60_000);
});
