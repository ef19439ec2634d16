import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MissingDependency } from '../../../lib/core/errors.js';
import { importPeer, missingPackageOf } from '../../../lib/core/peer.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const absent = 'agent-kernel-absent-peer';

describe('importPeer', () => {
  it('names the package and the npm install command when an optional peer is not installed', async () => {
    // Act
    const err = await importPeer(() => import(absent), 'Reading X').catch((e: unknown) => e);

    // Assess
    expect(err).toBeInstanceOf(MissingDependency);
    expect(err).toMatchObject({
      code: 'missing-dependency',
      package: absent,
      message: `Reading X needs the package "${absent}": npm install ${absent}`,
    });
    expect((err as Error).cause).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND' });
  });

  it('reads Node’s own error outside vitest: an ESM import of a scoped subpath names the scope/package', () => {
    // Act
    const script = `
      import { importPeer } from './lib/core/peer.ts';
      await importPeer(() => import('@agent-kernel-absent/sdk/client/index.js'), 'The feature')
        .catch((e) => console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })));
    `;
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );

    // Assess
    expect(JSON.parse(run.stdout), run.stderr).toEqual({
      name: 'MissingDependency',
      code: 'missing-dependency',
      message:
        'The feature needs the package "@agent-kernel-absent/sdk": npm install @agent-kernel-absent/sdk',
    });
  });

  it('knows CommonJS’s wording too', async () => {
    const require = createRequire(import.meta.url);
    await expect(importPeer(async () => require(`${absent}/sub`), 'Y')).rejects.toMatchObject({
      package: absent,
    });
  });

  it('passes other failures through unchanged: a missing file of the package’s own, an error the module throws', async () => {
    // Prepare
    const thrown = new Error('boom');

    // Act
    const missingFile = './no-such-file.js';
    const file = await importPeer(() => import(missingFile), 'Z').catch((e) => e);
    const failing = await importPeer(() => Promise.reject(thrown), 'Z').catch((e) => e);

    // Assess
    expect(file).not.toBeInstanceOf(MissingDependency);
    expect(failing).toBe(thrown);
    expect(missingPackageOf(undefined)).toBeUndefined();
    expect(
      missingPackageOf({ code: 'MODULE_NOT_FOUND', message: "Cannot find module '/x/y.js'" }),
    ).toBeUndefined();
  });

  it('returns the module when it is installed', async () => {
    const zod = await importPeer(() => import('zod'), 'Schemas');
    expect(typeof zod.object).toBe('function');
  });
});
