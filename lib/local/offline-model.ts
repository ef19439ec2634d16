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
