import { join, resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLE, bundleDefine } from '../../infra/bundling.js';
import { ModelSecretError } from '../../lib/aws/wiring/errors.js';
import { loadModelSecret } from '../../lib/aws/wiring/model-secret.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Bytes each package contributes to `entry` built with the stack's options and `define`. */
async function packageBytes(entry: string, define: Record<string, string>) {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    outfile: join(ROOT, 'node_modules', '.cache', 'bundle-defines', 'index.mjs'),
    bundle: true,
    platform: BUNDLE.platform,
    format: BUNDLE.format,
    target: BUNDLE.target,
    mainFields: [...BUNDLE.mainFields],
    minify: BUNDLE.minify,
    banner: { js: BUNDLE.banner },
    define,
    metafile: true,
    write: false,
    logLevel: 'error',
  });
  const output = Object.values((result.metafile as Metafile).outputs)[0];
  const bytes = new Map<string, number>();
  for (const [file, input] of Object.entries(output?.inputs ?? {})) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? 'project';
    bytes.set(name, (bytes.get(name) ?? 0) + input.bytesInOutput);
  }
  return (name: string) => bytes.get(name) ?? 0;
}

describe('bundle defines (infra/bundling.ts)', () => {
  it('leaves the SSM client out unless the model key is an SSM parameter', async () => {
    const entry = 'lib/aws/wiring/model-secret.ts';
    const secretsManager = await packageBytes(entry, bundleDefine(['cloudwatch']));
    const parameter = await packageBytes(
      entry,
      bundleDefine(['cloudwatch'], { modelParameter: true }),
    );
    expect(secretsManager('@aws-sdk/client-ssm')).toBe(0);
    expect(parameter('@aws-sdk/client-ssm')).toBeGreaterThan(100_000);
    // The Secrets Manager client stays: the default deploy's key lives there.
    expect(secretsManager('@aws-sdk/client-secrets-manager')).toBeGreaterThan(10_000);
  });

  it('leaves the tracing secret (and its Secrets Manager client) out without an OTel preset', async () => {
    const entry = 'lib/aws/middleware/observability.ts';
    const cloudwatch = await packageBytes(entry, bundleDefine(['cloudwatch']));
    const langfuse = await packageBytes(entry, bundleDefine(['cloudwatch', 'langfuse']));
    expect(cloudwatch('@aws-sdk/client-secrets-manager')).toBe(0);
    expect(langfuse('@aws-sdk/client-secrets-manager')).toBeGreaterThan(10_000);
  });

  it('an SSM model key in a bundle built without the SSM client fails naming the variable', async () => {
    const before = process.env.AGENT_KERNEL_BUNDLE_SSM;
    process.env.AGENT_KERNEL_BUNDLE_SSM = 'false';
    try {
      const config = {
        AWS_REGION: 'us-east-1',
        MODEL_SECRET_PARAMETER: '/kernel/model-key',
        MODEL_API_KEY_ENV: 'OPENAI_API_KEY',
      } as Parameters<typeof loadModelSecret>[0];
      const env: Record<string, string | undefined> = {};
      const error = await loadModelSecret(config, env).catch((e: unknown) => e);
      // The model-key reader's own error (its code is the client-visible one), naming the cause.
      expect(error).toBeInstanceOf(ModelSecretError);
      expect((error as ModelSecretError).code).toBe('model-secret-unavailable');
      expect((error as ModelSecretError).message).toMatch(/MODEL_SECRET_PARAMETER/);
      expect((error as ModelSecretError).message).toMatch(/without the SSM client/);
      // Nothing was set.
      expect(env).toEqual({});
    } finally {
      if (before === undefined) delete process.env.AGENT_KERNEL_BUNDLE_SSM;
      else process.env.AGENT_KERNEL_BUNDLE_SSM = before;
    }
  });
});
