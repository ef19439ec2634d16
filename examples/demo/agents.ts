import type { AgentsDeps } from '../../lib/aws/wiring/agents-entry.js';
import { createDemoModule } from './agent.js';

/**
 * The agents entry the Lambda functions load through `#agents` (package.json "imports"). A
 * deployment of your own agents points `#agents` at a file like this one: no change to lib/ or
 * functions/. The deployment passes `deps` (its ledger, journal and tracer). `OPENAI_BASE_URL`
 * points the agent at another OpenAI-compatible server (the local stack's scripted model, vLLM,
 * Ollama: no key needed), `OPENAI_API=chat` speaks Chat Completions to it, `OPENAI_MODEL` names
 * the model.
 */
export function createAgents(deps: AgentsDeps = {}) {
  const { module } = createDemoModule({
    // A local OpenAI-compatible server may need no key; the client insists on one.
    apiKey: process.env.OPENAI_API_KEY ?? (process.env.OPENAI_BASE_URL ? 'no-key' : undefined),
    baseURL: process.env.OPENAI_BASE_URL,
    // The deployment's DynamoDB ledger: the demo's Executor records every book_table call.
    ...(deps.ledger ? { ledger: deps.ledger } : {}),
  });
  return { modules: [module] };
}

/** How the demo answers offline (local stack, `npm run invoke`): the scripted model's responder. */
export { demoResponder as offlineResponder } from './offline-model.js';
