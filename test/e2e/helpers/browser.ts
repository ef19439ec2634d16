import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Where the browser tests leave their screenshots for a person to look at (gitignored). */
export const SHOTS = resolve(import.meta.dirname, '../../../test-results/playground');

/** Debian's chromium (`.ci/run` installs it), or the one CHROMIUM_PATH names. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((path): path is string => !!path && existsSync(path));
  if (!found) {
    throw new Error('No chromium: `apt-get install -y chromium`, or set CHROMIUM_PATH.');
  }
  return found;
}

export function launchChromium(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: resolve(SHOTS, `${name}.png`), fullPage: true });
}
