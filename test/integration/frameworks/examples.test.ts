import { describe, expect, it } from 'vitest';
import { main as adkExample, OFFLINE_SCRIPT as adkScript } from '../../../examples/adk/payments.js';
import {
  main as aiSdkExample,
  OFFLINE_SCRIPT as aiSdkScript,
} from '../../../examples/ai-sdk/payments.js';
import {
  main as langgraphExample,
  OFFLINE_SCRIPT as langgraphScript,
} from '../../../examples/langgraph/payments.js';
import {
  main as mastraExample,
  OFFLINE_SCRIPT as mastraScript,
} from '../../../examples/mastra/payments.js';
import {
  main as strandsExample,
  OFFLINE_SCRIPT as strandsScript,
} from '../../../examples/strands/payments.js';
import { startScriptedModelServer } from '../../../lib/testing/index.js';

const MODEL_ENV = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL'] as const;

/** Runs `fn` with the model variables set to `env` only, then puts them back. */
async function withModelEnv(
  env: Partial<Record<(typeof MODEL_ENV)[number], string>>,
  fn: () => Promise<void>,
) {
  const saved = MODEL_ENV.map((key) => [key, process.env[key]] as const);
  for (const key of MODEL_ENV) delete process.env[key];
  Object.assign(process.env, env);
  try {
    await fn();
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/** The paused line's call ids, and the ones the example approved. */
function ids(lines: string[]) {
  const paused = JSON.parse((lines[0] as string).replace(/^paused: /, '')) as { id: string }[];
  const approving = lines.find((l) => l.startsWith('approving: '));
  return { paused: paused.map((i) => i.id), approved: approving?.replace('approving: ', '') };
}

describe.each([
  ['ai-sdk', aiSdkExample, aiSdkScript],
  ['langgraph', langgraphExample, langgraphScript],
  ['mastra', mastraExample, mastraScript],
])('the %s example', (_name, main, script) => {
  it('pauses on the payment, approves the call id it received and answers (offline)', async () => {
    // Prepare
    const lines: string[] = [];

    // Act
    await withModelEnv({}, () => main((line) => lines.push(line)));

    // Assess: the offline model's ids are random, never the script's
    expect(lines[0]).toMatch(/^paused: .*"send_payment"/);
    const { paused, approved } = ids(lines);
    expect(paused).toHaveLength(1);
    expect(paused[0]).not.toBe('call_pay');
    expect(approved).toBe(paused[0]);
    expect(lines).toContain('tool send_payment → "sent 10 to Bob"');
    expect(lines.at(-1)).toBe('reply: Done: I sent Bob 10.');
  });

  it('talks to an OpenAI-compatible server given by OPENAI_BASE_URL alone (no key)', async () => {
    // Prepare: a server that makes up its call ids and needs no key
    const server = await startScriptedModelServer({ script, freshCallIds: true });
    const lines: string[] = [];

    // Act
    try {
      await withModelEnv({ OPENAI_BASE_URL: server.url, OPENAI_MODEL: 'scripted-model' }, () =>
        main((line) => lines.push(line)),
      );
    } finally {
      await server.close();
    }

    // Assess
    const { paused, approved } = ids(lines);
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(approved).toBe(paused[0]);
    expect(lines).toContain('tool send_payment → "sent 10 to Bob"');
    expect(lines.at(-1)).toBe('reply: Done: I sent Bob 10.');
  });
});

describe('the adk example', () => {
  const GEMINI_ENV = ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GEMINI_BASE_URL', 'GEMINI_MODEL'];
  /** Runs `fn` with the Gemini variables set to `env` only, then puts them back. */
  async function withGeminiEnv(env: Record<string, string>, fn: () => Promise<void>) {
    const saved = GEMINI_ENV.map((key) => [key, process.env[key]] as const);
    for (const key of GEMINI_ENV) delete process.env[key];
    Object.assign(process.env, env);
    try {
      await withModelEnv({}, fn);
    } finally {
      for (const [key, value] of saved) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  }

  it('pauses on the payment, approves the call id it received and answers (offline)', async () => {
    // Prepare
    const lines: string[] = [];

    // Act
    await withGeminiEnv({}, () => adkExample((line) => lines.push(line)));

    // Assess: the offline model's ids are random, never the script's
    expect(lines[0]).toMatch(/^paused: .*"send_payment"/);
    const { paused, approved } = ids(lines);
    expect(paused).toHaveLength(1);
    expect(paused[0]).not.toBe('call_pay');
    expect(approved).toBe(paused[0]);
    expect(lines).toContain('tool send_payment → "sent 10 to Bob"');
    expect(lines.at(-1)).toBe('reply: Done: I sent Bob 10.');
  });

  it('talks to a Gemini API server given by GEMINI_BASE_URL and GEMINI_MODEL', async () => {
    // Prepare
    const server = await startScriptedModelServer({ script: adkScript, freshCallIds: true });
    const lines: string[] = [];
    const env = { GEMINI_BASE_URL: server.url.replace(/\/v1$/, ''), GEMINI_MODEL: 'gemini-x' };

    // Act
    try {
      await withGeminiEnv(env, () => adkExample((line) => lines.push(line)));
    } finally {
      await server.close();
    }

    // Assess
    const { paused, approved } = ids(lines);
    expect(server.requests[0]?.path).toBe('/v1beta/models/gemini-x:streamGenerateContent');
    expect(approved).toBe(paused[0]);
    expect(lines.at(-1)).toBe('reply: Done: I sent Bob 10.');
  });
});

describe('the strands example', () => {
  const BEDROCK_ENV = ['BEDROCK_MODEL_ID', 'BEDROCK_ENDPOINT'] as const;

  async function withBedrockEnv(env: Record<string, string>, fn: () => Promise<void>) {
    const saved = BEDROCK_ENV.map((key) => [key, process.env[key]] as const);
    for (const key of BEDROCK_ENV) delete process.env[key];
    Object.assign(process.env, env);
    try {
      await fn();
    } finally {
      for (const [key, value] of saved) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  }

  it('pauses on the payment, approves the call id it received and answers (offline)', async () => {
    // Prepare
    const lines: string[] = [];

    // Act
    await withBedrockEnv({}, () => strandsExample((line) => lines.push(line)));

    // Assess
    expect(lines[0]).toMatch(/^paused: .*"send_payment"/);
    const { paused, approved } = ids(lines);
    expect(paused).toHaveLength(1);
    expect(paused[0]).not.toBe('call_pay');
    expect(approved).toBe(paused[0]);
    expect(lines).toContain('tool send_payment → "sent 10 to Bob"');
    expect(lines.at(-1)).toBe('reply: Done: I sent Bob 10.');
  });

  it('talks to a Converse endpoint given by BEDROCK_ENDPOINT and BEDROCK_MODEL_ID', async () => {
    // Prepare
    const server = await startScriptedModelServer({ script: strandsScript, freshCallIds: true });
    const lines: string[] = [];

    // Act
    try {
      await withBedrockEnv(
        { BEDROCK_ENDPOINT: server.url, BEDROCK_MODEL_ID: 'anthropic.claude-test' },
        () => strandsExample((line) => lines.push(line)),
      );
    } finally {
      await server.close();
    }

    // Assess
    expect(server.requests[0]?.path).toBe('/model/anthropic.claude-test/converse-stream');
    const { paused, approved } = ids(lines);
    expect(approved).toBe(paused[0]);
    expect(lines.at(-1)).toBe('reply: Done: I sent Bob 10.');
  });
});
