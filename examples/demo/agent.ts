import { OpenAIProvider, Agent as SdkAgent, tool } from '@openai/agents';
import * as z from 'zod';
import {
  type PausedRunStore,
  Runtime,
  type SessionStore,
  type ToolLedger,
} from '../../lib/core/index.js';
import { OpenAIModule } from '../../lib/frameworks/openai/index.js';
import { INTEGRATION as openaiTools } from '../../lib/frameworks/openai/tools.js';
import { InMemorySessionStore } from '../../lib/stores/index.js';
import { declareEffects, defineTool, Executor } from '../../lib/tools/index.js';

export interface DemoOptions {
  /** Defaults to the SDK's own (`OPENAI_API_KEY`). */
  apiKey?: string;
  /** Another OpenAI-compatible endpoint, such as the offline scripted model server. */
  baseURL?: string;
  /** Defaults to `OPENAI_MODEL`, then `gpt-4.1-mini`. */
  model?: string;
  /**
   * The OpenAI API the model is called with: `responses` (default) or `chat` (Chat Completions,
   * for servers such as vLLM or Ollama that have no Responses API). Defaults to `OPENAI_API`.
   */
  api?: ModelApi;
  sessions?: SessionStore;
  /** Where a paused run waits for its decisions (without one, a run that pauses cannot resume). */
  pausedRuns?: PausedRunStore;
  /** The deployment's tool ledger (`createAgents(deps)`): the Executor records each call. */
  ledger?: ToolLedger;
}

export type ModelApi = 'responses' | 'chat';

/** `OPENAI_API` (or the option) as an API name; anything else is refused with a sentence. */
export function modelApiOf(value: string | undefined): ModelApi {
  if (value === undefined || value === '' || value === 'responses') return 'responses';
  if (value === 'chat') return 'chat';
  throw new Error(`OPENAI_API must be "responses" or "chat" (Chat Completions), not "${value}".`);
}

const CONDITIONS = ['sunny', 'cloudy', 'rainy', 'windy', 'foggy', 'snowy', 'partly cloudy'];

/** A small stable hash, so a city always gets the same made-up weather. */
function hash(text: string): number {
  let h = 0;
  for (const char of text.toLowerCase()) h = (h * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return h;
}

/**
 * The SDK's default tells the model only that "an error occurred"; these tools' errors are
 * written for the model to read, so it can correct itself (e.g. pick a valid time zone).
 */
function modelVisibleError(_context: unknown, error: unknown): string {
  return `Error: ${error instanceof Error ? error.message : String(error)}`;
}

export const getWeather = declareEffects(
  tool({
    name: 'get_weather',
    description: 'Current weather for a city. Demo data: made up, but stable for each city.',
    parameters: z.object({ city: z.string().min(1).describe('City name, e.g. "Paris"') }),
    execute: async ({ city }) => {
      const h = hash(city.trim());
      return {
        city: city.trim(),
        conditions: CONDITIONS[h % CONDITIONS.length],
        celsius: (h % 36) - 5,
        source: 'demo data (made up, not a real forecast)',
      };
    },
    errorFunction: modelVisibleError,
  }),
  // Changes nothing: a replay simply runs it again (no journal write).
  { readOnly: true },
);

export const getTime = declareEffects(
  tool({
    name: 'get_time',
    description: 'The current date and time in an IANA time zone such as "Europe/Paris" or "UTC".',
    parameters: z.object({
      timeZone: z.string().min(1).describe('IANA time zone, e.g. "Asia/Tokyo"'),
    }),
    execute: async ({ timeZone }) => {
      let format: Intl.DateTimeFormat;
      try {
        format = new Intl.DateTimeFormat('en-GB', {
          timeZone,
          dateStyle: 'full',
          timeStyle: 'short',
        });
      } catch {
        throw new Error(
          `Unknown time zone "${timeZone}". Use an IANA time zone such as "Europe/Paris" or "UTC".`,
        );
      }
      const now = new Date();
      return {
        timeZone: format.resolvedOptions().timeZone,
        now: format.format(now),
        iso: now.toISOString(),
      };
    },
    errorFunction: modelVisibleError,
  }),
  { readOnly: true },
);

/**
 * Books a table (demo: nothing is booked). A ToolSpec run by the demo's Executor (so the call is
 * in the ledger, under the run journal, with an idempotency key): the only tool with an effect.
 * A person approves each call first (the SDK's own gate), so the run pauses until a `resume`
 * decides it (`npm run chat`). After a crash during a booking its outcome is unknown: the run
 * pauses for a person rather than booking twice.
 */
export const bookTableSpec = defineTool({
  name: 'book_table',
  description:
    'Book a restaurant table. Demo: nothing is really booked. A person approves each booking.',
  input: z.object({
    people: z.number().int().min(1).max(20).describe('How many people'),
    time: z.string().min(1).describe('When, as the user said it, e.g. "8pm" or "19:30"'),
  }),
  confirm: true,
  effects: { onUnknownOutcome: 'pause' },
  handler: ({ people, time }) => ({
    booked: true,
    people,
    time,
    confirmation: `T-${(hash(`${people}@${time}`) % 9000) + 1000}`,
    source: 'demo (nothing was really booked)',
  }),
});

/** The demo agent wrapped for a Runtime: what the Lambda functions deploy (`examples/demo/agents.ts`). */
export function createDemoModule(options: DemoOptions = {}) {
  const api = modelApiOf(options.api ?? process.env.OPENAI_API);
  const executor = new Executor({ ...(options.ledger ? { ledger: options.ledger } : {}) });
  const bookTable = openaiTools.exportTool(bookTableSpec, { executor });
  const agent = new SdkAgent({
    name: 'demo',
    // What the A2A card and `GET /agents` say of it.
    handoffDescription:
      'A friendly demo assistant: weather and time (made-up data) and table bookings a person approves.',
    instructions:
      'You are a friendly assistant in the demo of a serverless agent runtime. Answer briefly. ' +
      'Use get_weather for weather questions (its data is made up: say so) and get_time for ' +
      'the current time (pass an IANA time zone; use UTC when the user names none). ' +
      'Use book_table to book a table; a person approves it first (bookings are not real).',
    model: options.model ?? process.env.OPENAI_MODEL ?? 'gpt-4.1-mini',
    tools: [getWeather, getTime, bookTable],
  });
  const module = new OpenAIModule([agent], {
    runConfig: {
      modelProvider: new OpenAIProvider({
        apiKey: options.apiKey,
        baseURL: options.baseURL,
        useResponses: api === 'responses',
      }),
    },
  });
  return { module, agent };
}

/** The demo: one `@openai/agents` agent with three tools, behind a Runtime. */
export function createDemo(options: DemoOptions = {}) {
  const { module, agent } = createDemoModule(options);
  const runtime = new Runtime({
    sessions: options.sessions ?? new InMemorySessionStore(),
    ...(options.pausedRuns ? { pausedRuns: options.pausedRuns } : {}),
    modules: [module],
  });
  return { runtime, module, agent };
}
