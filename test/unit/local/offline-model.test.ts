import { describe, expect, it } from 'vitest';
import { offlineModelEnv } from '../../../lib/local/offline-model.js';

const URL_V1 = 'http://127.0.0.1:4010/v1';

describe('offlineModelEnv (which providers the local stack answers offline)', () => {
  it('fills in every provider on a machine with no model configured', () => {
    expect(offlineModelEnv({}, URL_V1)).toEqual({
      OPENAI_BASE_URL: URL_V1,
      OPENAI_API_KEY: 'offline',
      GEMINI_BASE_URL: 'http://127.0.0.1:4010',
      BEDROCK_ENDPOINT: 'http://127.0.0.1:4010',
    });
  });

  it.each([
    [{ OPENAI_API_KEY: 'sk' }, 'OPENAI_BASE_URL'],
    [{ OPENAI_BASE_URL: 'http://ollama' }, 'OPENAI_API_KEY'],
    [{ GEMINI_API_KEY: 'g' }, 'GEMINI_BASE_URL'],
    [{ GOOGLE_API_KEY: 'g' }, 'GEMINI_BASE_URL'],
    [{ GEMINI_BASE_URL: 'http://gemini' }, 'GEMINI_BASE_URL'],
    [{ BEDROCK_MODEL_ID: 'amazon.nova' }, 'BEDROCK_ENDPOINT'],
    [{ BEDROCK_ENDPOINT: 'http://converse' }, 'BEDROCK_ENDPOINT'],
  ])('leaves a configured provider alone (%o)', (env, untouched) => {
    expect(offlineModelEnv(env, URL_V1)).not.toHaveProperty(untouched);
  });

  it('is empty when every provider is configured', () => {
    const env = { OPENAI_API_KEY: 'sk', GEMINI_API_KEY: 'g', BEDROCK_MODEL_ID: 'm' };
    expect(offlineModelEnv(env, URL_V1)).toEqual({});
  });
});
