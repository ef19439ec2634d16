import { spawnSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Where the browser tests leave their screenshots for a person to look at (gitignored). */
export const SHOTS = resolve(import.meta.dirname, '../../../test-results/playground');

const ROOT = resolve(import.meta.dirname, '../../..');

/** The browser the tests drive: CHROMIUM_PATH when set, else the one `npm install` brought. */
export interface ChromiumLaunch {
  executablePath: string;
  env?: Record<string, string>;
}

/**
 * The Chromium shipped inside the @sparticuz/chromium package (a devDependency, so `npm install`
 * brings it from the registry and no system browser is needed). Its binary is brotli-packed;
 * unpack it once into node_modules/.cache. Parallel test files race here: each unpacks into its
 * own folder and renames it into place, so no one ever starts a half-written binary.
 */
export async function packagedChromium(): Promise<ChromiumLaunch> {
  const require = createRequire(import.meta.url);
  // The package exports no ./package.json: find its folder from its entry (build/index.js).
  const pkgDir = resolve(dirname(require.resolve('@sparticuz/chromium', { paths: [ROOT] })), '..');
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const bin = join(pkgDir, 'bin');
  const dir = join(ROOT, 'node_modules', '.cache', `chromium-${version}`);
  if (!existsSync(join(dir, 'chromium'))) await unpack(bin, dir);
  const env: Record<string, string> = { FONTCONFIG_PATH: dir };
  // A machine without Chromium's NSS/NSPR libraries: use the copies the package ships.
  const ldd = spawnSync('ldd', [join(dir, 'chromium')], { encoding: 'utf8' });
  if (/not found/.test(ldd.stdout ?? '')) {
    env.LD_LIBRARY_PATH = [join(dir, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  }
  return { executablePath: join(dir, 'chromium'), env };
}

async function unpack(bin: string, dir: string): Promise<void> {
  const work = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(work, { recursive: true });
  try {
    const binary = join(work, 'chromium');
    await pipeline(
      createReadStream(join(bin, 'chromium.br')),
      createBrotliDecompress(),
      createWriteStream(binary, { mode: 0o755 }),
    );
    // fonts.conf + fonts/, the SwiftShader GL libraries beside the binary, and lib/ (NSS).
    for (const tar of ['fonts.tar.br', 'swiftshader.tar.br', 'al2023.tar.br']) {
      const tarFile = join(work, tar.replace(/\.br$/, ''));
      await pipeline(
        createReadStream(join(bin, tar)),
        createBrotliDecompress(),
        createWriteStream(tarFile),
      );
      const untar = spawnSync('tar', ['-xf', tarFile, '-C', work], { encoding: 'utf8' });
      if (untar.status !== 0) throw new Error(`tar -xf ${tar}: ${untar.stderr}`);
      rmSync(tarFile);
    }
    // The shipped fonts.conf names Lambda's folders; without fonts Chromium aborts on first text.
    writeFileSync(
      join(work, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
        `  <dir>${join(dir, 'fonts')}</dir>\n  <dir>/usr/share/fonts</dir>\n` +
        `  <cachedir>${join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
    );
    try {
      renameSync(work, dir);
    } catch (error) {
      // Another test file got there first: its copy is complete (rename is atomic).
      if (existsSync(join(dir, 'chromium'))) return;
      // A folder without the binary is no copy in progress (those live in .tmp-* folders) but a
      // stale one, e.g. a fonts-cache a browser wrote after its folder was removed: set it aside.
      const stale = `${dir}.stale-${process.pid}-${Date.now()}`;
      try {
        renameSync(dir, stale);
      } catch {
        throw error;
      }
      rmSync(stale, { recursive: true, force: true });
      renameSync(work, dir);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export async function chromiumLaunch(): Promise<ChromiumLaunch> {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv}: no such file.`);
    return { executablePath: fromEnv };
  }
  return packagedChromium();
}

export async function launchChromium(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  const { executablePath, env } = await chromiumLaunch();
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox'],
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: resolve(SHOTS, `${name}.png`), fullPage: true });
}
