/**
 * Which model settings the local stack fills in with its scripted model server, per provider:
 * only those the user left unset, so a real key or endpoint always wins. The server speaks the
 * OpenAI APIs under `/v1`, Gemini's under `/v1beta` and Bedrock's Converse under `/model`, so the
 * demo and the ADK, Strands and Mastra agents entries all run offline.
 */
export function offlineModelEnv(env: NodeJS.ProcessEnv, serverUrl: string): Record<string, string> {
  const root = serverUrl.replace(/\/v1\/?$/, '');
  const set: Record<string, string> = {};
  if (!env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) {
    set.OPENAI_BASE_URL = serverUrl;
    set.OPENAI_API_KEY = 'offline';
  }
  if (!env.GEMINI_API_KEY && !env.GOOGLE_API_KEY && !env.GEMINI_BASE_URL) {
    set.GEMINI_BASE_URL = root;
  }
  if (!env.BEDROCK_MODEL_ID && !env.BEDROCK_ENDPOINT) set.BEDROCK_ENDPOINT = root;
  return set;
}

/** The offline model's default pace: about a person's reading speed, so streaming is visible. */
export const OFFLINE_TOKENS_PER_SECOND = 40;
const PACE_ENV = 'AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND';
/** The scripted model's chunks are 8 characters: about 2 tokens of English. */
const TOKENS_PER_CHUNK = 2;

/**
 * The pause between the offline model's streamed chunks: AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND
 * (default 40; `0` streams as fast as it can, as the tests do).
 */
export function offlineChunkDelayMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[PACE_ENV];
  const perSecond = raw === undefined || raw === '' ? OFFLINE_TOKENS_PER_SECOND : Number(raw);
  if (!Number.isFinite(perSecond) || perSecond < 0) {
    throw new Error(`${PACE_ENV}=${raw}: a number of tokens per second, ≥ 0 (0: no pause)`);
  }
  return perSecond === 0 ? 0 : (1000 * TOKENS_PER_CHUNK) / perSecond;
}
