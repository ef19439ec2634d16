import { describe, expect, it } from 'vitest';
import { loadConfig, modelKeyVariableProblem } from '../../../lib/aws/wiring/config.js';
import { ConfigError, ModelSecretError } from '../../../lib/aws/wiring/errors.js';
import { loadModelSecret, parseModelSecret } from '../../../lib/aws/wiring/model-secret.js';
import { secretsFromEnv } from '../../../lib/tracing/index.js';

const source = { kind: 'secrets-manager', name: 'agent-kernel/openai' } as const;
const config = { MODEL_API_KEY_ENV: 'OPENAI_API_KEY' };

describe('model secret configuration', () => {
  it('defaults to OPENAI_API_KEY and reads nothing without a secret', async () => {
    // Arrange
    const env: Record<string, string | undefined> = {};

    // Act
    const loaded = await loadModelSecret(loadConfig(env), env);

    // Assess
    expect(loadConfig({}).MODEL_API_KEY_ENV).toBe('OPENAI_API_KEY');
    expect(loaded).toBeUndefined();
    expect(env).toEqual({});
  });

  it('refuses a bad MODEL_API_KEY_ENV at cold start', () => {
    expect(() => loadConfig({ MODEL_API_KEY_ENV: 'AWS_SECRET_ACCESS_KEY' })).toThrow(
      /MODEL_API_KEY_ENV is reserved/,
    );
    expect(() => loadConfig({ MODEL_API_KEY_ENV: 'openai_api_key' })).toThrow(ConfigError);
    expect(() => loadConfig({ MODEL_API_KEY_ENV: 'JWT_SECRET' })).toThrow(/kernel itself/);
    expect(() => loadConfig({ MODEL_API_KEY_ENV: 'MODEL_URL' })).toThrow(/secret-shaped/);
    expect(loadConfig({ MODEL_API_KEY_ENV: 'ANTHROPIC_API_KEY' }).MODEL_API_KEY_ENV).toBe(
      'ANTHROPIC_API_KEY',
    );
  });

  it.each([
    ['AWS_ACCESS_KEY_ID', /reserved/],
    ['AWS_SESSION_TOKEN', /reserved/],
    ['_X_AMZN_TRACE_ID', /reserved/],
    ['LAMBDA_TASK_ROOT', /reserved/],
    ['LAMBDA_API_KEY', /reserved/],
    ['1PASSWORD', /not a variable name/],
    ['__proto__', /not a variable name/],
    ['OPENAI-API-KEY', /not a variable name/],
    ['NODE_OPTIONS', /secret-shaped/],
    ['TABLE_NAME', /kernel itself/],
  ])('refuses %s', (name, reason) => {
    expect(modelKeyVariableProblem(name)).toMatch(reason);
  });

  it('accepts only names whose values secretsFromEnv picks', () => {
    const names = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'HF_TOKEN', 'MY_PROVIDER_SECRET'];
    for (const name of names) expect(modelKeyVariableProblem(name)).toBeUndefined();
    const env = Object.fromEntries(names.map((name, i) => [name, `value-${i}-planted`]));
    expect(secretsFromEnv(env).sort()).toEqual(Object.values(env).sort());
  });
});

describe('parseModelSecret', () => {
  it('takes a plain value whole (trimmed) and a JSON object as a map', () => {
    expect(parseModelSecret(' sk-abc123456789\n', source, config)).toEqual({
      OPENAI_API_KEY: 'sk-abc123456789',
    });
    expect(parseModelSecret('not {json}', source, config)).toEqual({
      OPENAI_API_KEY: 'not {json}',
    });
    expect(
      parseModelSecret(
        '{"OPENAI_API_KEY":"a-value-1","GEMINI_API_KEY":" b-value-2 "}',
        source,
        config,
      ),
    ).toEqual({ OPENAI_API_KEY: 'a-value-1', GEMINI_API_KEY: 'b-value-2' });
  });

  it.each([
    ['{}', 'is an empty JSON object.'],
    [
      '{"OPENAI_API_KEY": 42, "X_TOKEN": "planted-v"}',
      'must be a JSON object of strings; not a string: OPENAI_API_KEY.',
    ],
    [
      '{"OPENAI_API_KEY": {"nested": "planted-n"}}',
      'must be a JSON object of strings; not a string: OPENAI_API_KEY.',
    ],
    ['{"OPENAI_API_KEY": "  "}', 'cannot set "OPENAI_API_KEY" is empty.'],
    ['{"planted": 1', 'starts with "{" but is not valid JSON.'],
  ])('refuses %s with a message that shows no value', (text, message) => {
    // Act
    const attempt = () => parseModelSecret(text, source, config);

    // Assess
    expect(attempt).toThrow(ModelSecretError);
    expect(attempt).toThrow(`The Secrets Manager secret "agent-kernel/openai" ${message}`);
    try {
      attempt();
    } catch (err) {
      expect((err as Error).message).not.toContain('planted');
      expect((err as ModelSecretError).code).toBe('model-secret-invalid');
    }
  });
});
