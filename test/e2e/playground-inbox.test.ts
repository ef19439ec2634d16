import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../lib/local/stack.js';
import { launchChromium, shot } from './helpers/browser.js';
import { type SlowModel, startSlowModel } from './helpers/slow-model.js';

// The approvals inbox in headless Chromium at phone width, against the local stack: the owner
// waits on a booking in one browser context, the back-office approver (the stack's default
// APPROVER_PRINCIPALS) decides it from the inbox in another, and the owner watches it resume.
let model: SlowModel;
let stack: LocalStack;
let browser: Browser;
let owner: Page;
let approver: Page;

async function opened(token: string, hash: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto(`${stack.playgroundUrl}${hash}`);
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Connect' }).click();
  // The chat's status line, hidden while a console view shows.
  await page.getByText('Connected. Say something.').waitFor({ state: 'attached', timeout: 30_000 });
  return page;
}

beforeAll(async () => {
  model = await startSlowModel(1);
  process.env.OPENAI_BASE_URL = model.url;
  process.env.OPENAI_API_KEY = 'offline';
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  const { startLocalStack } = await import('../../lib/local/stack.js');
  stack = await startLocalStack();
  browser = await launchChromium();
  owner = await opened(await stack.tokenFor('inbox-alice'), '#/');
  approver = await opened(await stack.tokenFor('back-office'), '#/approvals');
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await model?.close();
});

const status = (page: Page) => page.locator('#status').textContent();
const inboxStatus = (page: Page) =>
  page.locator('#console').getByRole('status').first().textContent();
const inbox = (page: Page) =>
  page.getByRole('list', { name: 'Paused runs waiting for a decision' }).getByRole('listitem');

async function noSeriousViolations(page: Page, name: string) {
  const result = await new AxeBuilder({ page }).analyze();
  const serious = result.violations.filter((v) => ['serious', 'critical'].includes(v.impact ?? ''));
  expect(serious.map((v) => `${name}: ${v.id} ${v.help}`)).toEqual([]);
}

describe('the approvals inbox in Chromium', () => {
  it('an approver decides a run from the inbox while its owner watches it resume', async () => {
    // Prepare: the owner's booking waits for a decision.
    const message = owner.getByRole('textbox', { name: 'Message', exact: true });
    await message.fill('book a table for 2 at 8pm');
    await message.press('Enter');
    const card = owner.getByRole('listitem', { name: 'Approval: book_table' }).last();
    await card.waitFor({ timeout: 60_000 });
    await expect.poll(() => status(owner), { timeout: 30_000 }).toBe('Waiting for your decision.');

    // Act: the approver reloads the inbox, edits the party to 4 and approves from the keyboard.
    await approver.reload();
    await expect
      .poll(() => approver.locator('#console-title').textContent(), { timeout: 15_000 })
      .toBe('Approvals');
    const run = inbox(approver).filter({ hasText: 'inbox-alice' });
    await run.waitFor({ timeout: 15_000 });
    expect(await approver.locator('.scope').textContent()).toMatch(/You are an approver/);
    expect(await run.getByRole('heading').textContent()).toBe('book_table for inbox-alice');
    const args = run.getByLabel('Arguments of book_table');
    expect(JSON.parse(await args.inputValue())).toMatchObject({ people: 2, time: '8pm' });
    await args.fill('{ "people": 4, "time": "8pm" }');
    await noSeriousViolations(approver, 'inbox');
    expect(await approver.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    await shot(approver, 'inbox-1-approver-before');
    await run.getByRole('button', { name: 'Approve book_table for inbox-alice' }).focus();
    await approver.keyboard.press('Enter');

    // Assess: the inbox shows what happened after; the owner's page shows the resumed run.
    const outcome = run.getByRole('status');
    await expect
      .poll(() => outcome.textContent(), { timeout: 30_000 })
      .toMatch(/^Resumed: the run completed\.Booked a table for 4 at 8pm/);
    expect(await run.textContent()).toContain('Approved with edited arguments.');
    await shot(approver, 'inbox-2-approver-after');
    await expect.poll(() => status(owner), { timeout: 30_000 }).toBe('Done.');
    expect(await card.textContent()).toContain('Decided elsewhere (an approver, or another page).');
    const last = owner.getByRole('log', { name: 'Conversation' }).locator('li.assistant').last();
    expect(await last.textContent()).toMatch(/^Booked a table for 4 at 8pm/);
    await noSeriousViolations(owner, 'owner-after');
    await shot(owner, 'inbox-3-owner-watched');

    // And: the decided run has left the inbox.
    await approver.reload();
    await expect
      .poll(() => inboxStatus(approver), { timeout: 15_000 })
      .toBe('Nothing waits for a decision.');
  }, 120_000);

  it('shows a principal only its own paused runs, and says when someone else decided first', async () => {
    // Prepare: two bookings of the owner's wait; the owner's own inbox lists them.
    for (const text of ['book a table for 3 at 9pm', 'book a table for 5 at 6pm']) {
      await owner.getByRole('button', { name: 'New session' }).click();
      const message = owner.getByRole('textbox', { name: 'Message', exact: true });
      await message.fill(text);
      await message.press('Enter');
      await expect
        .poll(() => status(owner), { timeout: 30_000 })
        .toBe('Waiting for your decision.');
    }
    const mallory = await opened(await stack.tokenFor('inbox-mallory'), '#/approvals');
    await owner.goto(`${stack.playgroundUrl}#/approvals`);
    await approver.reload();
    await expect.poll(() => inbox(owner).count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => inbox(approver).count(), { timeout: 15_000 }).toBe(2);

    // Act: the owner denies the first in her inbox; the approver, on a stale page, approves it.
    const mine = inbox(owner).first();
    await mine.getByRole('button', { name: /^Deny / }).click();
    await expect
      .poll(() => mine.getByRole('status').textContent(), { timeout: 30_000 })
      .toMatch(/^Resumed: the run completed\./);
    const stale = inbox(approver).first();
    await stale.getByRole('button', { name: /^Approve / }).click();

    // Assess
    await expect
      .poll(() => stale.getByRole('alert').last().textContent(), { timeout: 30_000 })
      .toMatch(/^Someone else decided this run first/);
    expect(await inboxStatus(mallory)).toBe('Nothing waits for a decision.');
    expect(await mallory.locator('.scope').textContent()).toMatch(/^Your own paused runs/);
    await noSeriousViolations(approver, 'inbox-conflict');
    await shot(approver, 'inbox-4-someone-else-first');
    await mallory.context().close();
  }, 120_000);
});
