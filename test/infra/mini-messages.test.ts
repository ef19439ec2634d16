import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { PausedRunSchema } from '../../lib/core/paused-run.js';
import { parseInbound } from '../../lib/transport/parse.js';

const ROOT = resolve(import.meta.dirname, '../..');
const cache = join(ROOT, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const out = mkdtempSync(join(cache, 'mini-messages-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

// Frames whose issues fall back to zod's own words (inside unions, unknown fields, formats).
const FRAMES = [
  { action: 'run', requestId: 'r1', agent: 'a', input: [{ type: 'image' }] },
  { action: 'run', requestId: 'r1', agent: 'a', input: [{ type: 'file', url: 5 }] },
  { action: 'run', requestId: 'r1', agent: 'a', input: [{ type: 'image', url: 'not a url' }] },
  { action: 'resume', requestId: 'r', sessionId: 's', runId: 'x', decisions: [{ id: 1 }] },
  { action: 'subscribe', requestId: 'r', sessionId: 's', afterSeq: 1.5, extra: 1 },
  { action: 'run', requestId: 'r1', agent: 'a', input: 7 },
].map((frame) => JSON.stringify(frame));
// A stored item the stores refuse: its issues keep zod's words (no error map of the gate's).
const STORED = {
  schemaVersion: 2,
  runId: '',
  status: 'done',
  interruptions: [{ id: 1 }],
  extra: 1,
};
const storedIssues = () => PausedRunSchema.safeParse(STORED).error?.issues.map((i) => i.message);

// ws-message bundles zod/mini alone, which registers no messages of its own; lazySchema sets
// English when no locale is, as classic zod does on its first schema (loaded here by vitest's
// other imports). A bundle of the gate alone must answer each frame as this process does.
describe('the gate without classic zod', { timeout: 120_000 }, () => {
  it("words every issue, the gate's and a store's, as it does with classic zod loaded", async () => {
    // Prepare
    const entry = join(out, 'entry.ts');
    writeFileSync(
      entry,
      `import { parseInbound } from ${JSON.stringify(join(ROOT, 'lib/transport/parse.ts'))};
import { PausedRunSchema } from ${JSON.stringify(join(ROOT, 'lib/core/paused-run.ts'))};
const frames = ${JSON.stringify(FRAMES)};
const stored = PausedRunSchema.safeParse(${JSON.stringify(STORED)}).error?.issues.map((i) => i.message);
process.stdout.write(JSON.stringify({ frames: frames.map((frame) => parseInbound(frame)), stored }));`,
    );
    const outfile = join(out, 'gate.mjs');
    const result = await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      metafile: true,
      logLevel: 'error',
    });
    const inputs = Object.keys(result.metafile.inputs);

    // Act
    const child = spawnSync(process.execPath, [outfile], { encoding: 'utf8' });

    // Assess
    expect(inputs.some((input) => /zod[\\/]v4[\\/]classic[\\/]/.test(input))).toBe(false);
    expect(child.status, child.stderr).toBe(0);
    const alone = JSON.parse(child.stdout) as { frames: unknown[]; stored: string[] };
    expect(alone.frames).toEqual(FRAMES.map((frame) => parseInbound(frame)));
    expect(alone.stored).toEqual(storedIssues());
    // Without English, zod/mini says "Invalid input" for each of them.
    expect(alone.stored.filter((message) => message !== 'Invalid input').length).toBeGreaterThan(5);
    expect(JSON.stringify(alone.frames)).not.toContain('Invalid input');
  });
});
