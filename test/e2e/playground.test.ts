import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../lib/local/stack.js';
import { launchChromium, shot } from './helpers/browser.js';
import { type SlowModel, STORY, STORY_REASONING, startSlowModel } from './helpers/slow-model.js';

// The playground in headless Chromium against the local stack, as a person uses it on a phone:
// the page, the HTTP API (cross-origin, so CORS for real) and the WebSocket API.
let model: SlowModel;
let stack: LocalStack;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  // 50 ms between events, about reading pace: delivery's adaptive window (up to 400 ms at such a
  // rate) still shows the story in several pieces before it ends.
  model = await startSlowModel(50);
  process.env.OPENAI_BASE_URL = model.url;
  process.env.OPENAI_API_KEY = 'offline';
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  const { startLocalStack } = await import('../../lib/local/stack.js');
  stack = await startLocalStack();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await model?.close();
});

const log = () => page.getByRole('log', { name: 'Conversation' });
const lastAssistant = () => log().locator('li.assistant').last();

async function say(text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  await page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
}

async function untilStatus(text: string): Promise<void> {
  await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toBe(text);
}

describe('the playground page in Chromium', () => {
  it('shows a refused token as a readable message', async () => {
    // Act
    await page.goto(stack.playgroundUrl);
    await page.getByLabel('Token').fill('not-a-token');
    await page.getByRole('button', { name: 'Connect' }).click();

    // Assess
    await expect
      .poll(() => page.locator('#error').textContent(), { timeout: 10_000 })
      .toContain('The API refused this token (HTTP 401)');
    expect(await page.getByLabel('Agent').isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await shot(page, '1-refused-token');
  }, 60_000);

  it('streams reasoning and text: tokens are on the page before the answer ends', async () => {
    // Prepare: a good token; every change of the newest answer is sampled with the status.
    await page.getByLabel('Token').fill(stack.token);
    await page.getByRole('button', { name: 'Connect' }).click();
    await untilStatus('Connected. Say something.');
    expect(await page.locator('#error').isHidden()).toBe(true);
    expect(await page.getByLabel('Agent').inputValue()).toBe('demo');
    // The agents came cross-origin: the page's origin is the stream URL's, not the API's (CORS).
    expect(new URL(page.url()).origin).not.toBe(new URL(stack.httpUrl).origin);
    // A string: the browser's globals are not in this project's types (no DOM lib).
    await page.evaluate(`(() => {
      const samples = (window.samples = []);
      new MutationObserver(() => {
        const answer = [...document.querySelectorAll('#log > li.assistant')].at(-1);
        samples.push({
          length: answer?.textContent?.length ?? 0,
          status: document.getElementById('status')?.textContent ?? '',
        });
      }).observe(document.getElementById('log'), {
        subtree: true,
        childList: true,
        characterData: true,
      });
    })()`);

    // Act
    await say('tell me a story');
    await untilStatus('Done.');

    // Assess
    expect(await lastAssistant().textContent()).toBe(STORY);
    expect(await log().locator('li.reasoning').last().textContent()).toContain(STORY_REASONING);
    const samples = (await page.evaluate('window.samples')) as { length: number; status: string }[];
    const partial = samples.filter((s) => s.length > 0 && s.length < STORY.length);
    expect(new Set(partial.map((s) => s.length)).size).toBeGreaterThanOrEqual(3);
    expect(partial.every((s) => s.status === 'Streaming…')).toBe(true);
    await shot(page, '2-streamed-story');
  }, 60_000);

  it('shows a tool call as it happens, with its arguments and result', async () => {
    // Act
    await say('weather in Paris?');
    await untilStatus('Done.');

    // Assess
    const tool = log().locator('li.tool').last();
    expect(await tool.textContent()).toContain('Tool call: get_weather');
    expect(await tool.locator('pre.args').textContent()).toBe('{"city":"Paris"}');
    expect(await tool.locator('pre.result').textContent()).toMatch(/^→ .*Paris/);
    expect(await lastAssistant().textContent()).toMatch(/^Demo data: in Paris it is -?\d+°C/);
  }, 60_000);

  it('approves a booking from the keyboard', async () => {
    // Act: the Approve button has the focus once the card shows.
    await say('book a table for 2 at 8pm');
    const card = page.getByRole('listitem', { name: 'Approval: book_table' }).last();
    await card.waitFor({ timeout: 30_000 });
    await untilStatus('Waiting for your decision.');
    await shot(page, '3-approval-card');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Approve');
    await page.keyboard.press('Enter');
    await untilStatus('Done.');

    // Assess
    expect(await card.textContent()).toContain('Approved.');
    expect(await lastAssistant().textContent()).toMatch(
      /^Booked a table for 2 at 8pm \(confirmation T-\d{4}\)\./,
    );
  }, 60_000);

  it('denies a booking', async () => {
    // Act
    await say('book a table for 3 at 9pm');
    const card = page.getByRole('listitem', { name: 'Approval: book_table' }).last();
    await untilStatus('Waiting for your decision.');
    expect(JSON.parse(await card.getByLabel('Arguments').inputValue())).toMatchObject({
      people: 3,
    });
    await card.getByRole('button', { name: 'Deny' }).click();
    await untilStatus('Done.');

    // Assess
    expect(await card.textContent()).toContain('Denied.');
    expect(await lastAssistant().textContent()).toContain('I did not book the table');
  }, 60_000);

  it('edits a booking before approving it: the edited arguments are booked', async () => {
    // Act
    await say('book a table for 4 at 7pm');
    const card = page.getByRole('listitem', { name: 'Approval: book_table' }).last();
    await untilStatus('Waiting for your decision.');
    expect(JSON.parse(await card.getByLabel('Arguments').inputValue())).toMatchObject({
      people: 4,
    });
    await card.getByLabel('Arguments').fill('{ "people": 6, "time": "7pm" }');
    await shot(page, '4-edited-arguments');
    await card.getByRole('button', { name: 'Approve' }).click();
    await untilStatus('Done.');

    // Assess
    expect(await card.textContent()).toContain('Approved with edited arguments.');
    expect(await lastAssistant().textContent()).toMatch(/^Booked a table for 6 at 7pm/);
  }, 60_000);

  it('shows the session history from the API after a reload, a pending approval included', async () => {
    // Prepare: a booking left waiting.
    await say('book a table for 5 at 6pm');
    await untilStatus('Waiting for your decision.');
    const sessionId = await page.locator('#session-id').textContent();

    // Act
    await page.reload();
    await untilStatus('Waiting for your decision.');

    // Assess: the same session, each turn's input and the API's record of its answer.
    expect(await page.locator('#session-id').textContent()).toBe(sessionId);
    const users = await log().locator('li.user.history').allTextContents();
    expect(users).toEqual([
      'tell me a story',
      'weather in Paris?',
      'book a table for 2 at 8pm',
      'book a table for 3 at 9pm',
      'book a table for 4 at 7pm',
      'book a table for 5 at 6pm',
    ]);
    const answers = await log().locator('li.assistant.history').allTextContents();
    expect(answers[0]).toBe(STORY);
    expect(answers.join('\n')).toMatch(/Booked a table for 2 at 8pm/);
    expect(answers.join('\n')).toMatch(/Booked a table for 6 at 7pm/);
    // Past approvals come back decided, with what the journal says became of each call.
    const verdicts = () => log().locator('li.approval .verdict').allTextContents();
    await expect
      .poll(verdicts, { timeout: 15_000 })
      .toEqual([
        'Approved: the call ran.',
        'Denied: the call did not run.',
        'Approved: the call ran.',
      ]);
    expect(await log().locator('li.tool', { hasText: 'Tool call: get_weather' }).count()).toBe(1);
    expect(page.url()).toBe(stack.playgroundUrl);
    const width = await page.evaluate('document.documentElement.scrollWidth');
    expect(width).toBeLessThanOrEqual(390);
    await shot(page, '5-history-after-reload');

    // Act: the pending booking is decided from the reloaded page.
    const card = page.getByRole('listitem', { name: 'Approval: book_table' }).last();
    await card.getByRole('button', { name: 'Approve' }).click();
    await untilStatus('Done.');

    // Assess
    expect(await lastAssistant().textContent()).toMatch(/^Booked a table for 5 at 6pm/);
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot(page, '6-desktop');
  }, 90_000);
});
