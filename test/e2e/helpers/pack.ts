import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { root } from './cli.js';

/** What `npm pack --json` says of the tarball it wrote. */
export interface Packed {
  filename: string;
  files: { path: string }[];
}

const LOCK = join(root, 'test-results', 'npm-pack.lock');

/**
 * `npm pack` of this repository into `dest`. Its `prepack` empties and rebuilds dist/, so two
 * test files packing at once would ship each other's half-built dist: a lock folder (mkdir is
 * atomic) makes them take turns; a lock older than 10 minutes is a dead run's and is taken over.
 * The first file of a run packs; the others get a copy of its tarball (test/global-setup-pack.ts).
 */
export async function packKernel(dest: string): Promise<Packed> {
  mkdirSync(dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 600_000) rmSync(LOCK, { recursive: true, force: true });
      await sleep(250);
    }
  }
  try {
    const cache = inject('packCache');
    const described = join(cache, 'packed.json');
    if (!existsSync(described)) writeFileSync(described, JSON.stringify(npmPack(cache)));
    const info = JSON.parse(readFileSync(described, 'utf8')) as Packed;
    copyFileSync(join(cache, info.filename), join(dest, info.filename));
    return info;
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function npmPack(dest: string): Packed {
  const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', dest], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, PATH, NO_COLOR: '1' },
    timeout: 300_000,
  });
  if (pack.status !== 0) {
    const why = pack.error ? pack.error.message : `exit ${pack.status ?? pack.signal}`;
    throw new Error(`npm pack failed (${why})\n${pack.stdout}\n${pack.stderr}`);
  }
  const [info] = JSON.parse(pack.stdout) as [Packed];
  return info;
}
