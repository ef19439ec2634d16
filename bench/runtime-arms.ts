/**
 * The arms of bench/runtime-overhead.ts: for each framework, the bare SDK's non-streaming and
 * streaming calls (a hand-written peer keeping history in memory) and the same agent in a Runtime.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import {
  type AgentInputItem,
  OpenAIProvider,
  Agent as SdkAgent,
  Runner as SdkRunner,
} from '@openai/agents';
import { generateText, type ModelMessage, stepCountIs, streamText } from 'ai';
import { aiSdkAgent } from '../lib/frameworks/ai-sdk/index.js';
import { langgraphAgent } from '../lib/frameworks/langgraph/index.js';
import { OpenAIModule } from '../lib/frameworks/openai/index.js';
import { type Agent, InMemorySessionStore, Runtime } from '../lib/index.js';

export type Arm = (turn: number, prompt: string) => Promise<void>;
export type Mode = 'run' | 'stream';
export interface Framework {
  readonly name: string;
  readonly bare: Record<Mode, Arm>;
  readonly runtime: Record<Mode, Arm>;
}

/** Sessions restart every few turns so history (and request size) stays alike in every arm. */
const TURNS_PER_SESSION = 8;
const INSTRUCTIONS = 'Answer briefly.';

/** A bare arm's history, restarted with each session. */
function history<T>(): (turn: number, next?: T[]) => T[] {
  let items: T[] = [];
  return (turn, next) => {
    if (next) items = next;
    else if (turn % TURNS_PER_SESSION === 0) items = [];
    return items;
  };
}

function runtimeArms(agent: Agent | OpenAIModule, name: string): Record<Mode, Arm> {
  const runtime = new Runtime({
    sessions: new InMemorySessionStore(),
    ...(agent instanceof OpenAIModule ? { modules: [agent] } : { agents: [agent] }),
  });
  // One session per mode, as each bare arm keeps its own history: shared, a Runtime session
  // would grow by two turns per loop and send twice the history of a bare arm.
  const prefixes = { run: 0, stream: 0 };
  const session = (mode: Mode, turn: number) => {
    if (turn === 0) prefixes[mode] += 1;
    return `${name}-${mode}-${prefixes[mode]}-${Math.floor(turn / TURNS_PER_SESSION)}`;
  };
  return {
    run: async (turn, prompt) => {
      await runtime.run(name, session('run', turn), prompt);
    },
    stream: async (turn, prompt) => {
      for await (const _event of runtime.stream(name, session('stream', turn), prompt)) {
        // consume every event, as a client would
      }
    },
  };
}

function openai(url: string): Framework {
  const provider = new OpenAIProvider({ apiKey: 'bench', baseURL: url, useResponses: true });
  const native = new SdkAgent({
    name: 'openai',
    instructions: INSTRUCTIONS,
    model: 'scripted-model',
  });
  const sdk = new SdkRunner({ modelProvider: provider, tracingDisabled: true });
  const bareArm = (stream: boolean): Arm => {
    const items = history<AgentInputItem>();
    return async (turn, prompt) => {
      const input = [...items(turn), { role: 'user', content: prompt } as AgentInputItem];
      if (!stream) {
        items(turn, (await sdk.run(native, input)).history);
        return;
      }
      const result = await sdk.run(native, input, { stream: true });
      for await (const _event of result) {
        // consume every event
      }
      await result.completed;
      items(turn, result.history);
    };
  };
  // The Runtime gets its own SDK runner: it wraps the model provider with its tracing layer.
  const module = new OpenAIModule([native], {
    sdkRunner: new SdkRunner({ modelProvider: provider, tracingDisabled: true }),
  });
  return {
    name: 'openai',
    bare: { run: bareArm(false), stream: bareArm(true) },
    runtime: runtimeArms(module, 'openai'),
  };
}

function aiSdk(url: string): Framework {
  const model = createOpenAI({ baseURL: url, apiKey: 'bench' })('scripted-model');
  // `store: false` as the runner sends it: with OpenAI's default (`store: true`) the provider
  // replaces earlier answers by `item_reference`s, so history would live on the server, not in
  // the variable, and the two sides would send different requests.
  const settings = {
    model,
    system: INSTRUCTIONS,
    maxRetries: 0,
    stopWhen: stepCountIs(10),
    providerOptions: { openai: { store: false } },
  };
  const bareArm = (stream: boolean): Arm => {
    const items = history<ModelMessage>();
    return async (turn, prompt) => {
      const messages = [...items(turn), { role: 'user', content: prompt } as ModelMessage];
      if (!stream) {
        const result = await generateText({ ...settings, messages });
        items(turn, [...messages, ...result.responseMessages]);
        return;
      }
      const result = streamText({ ...settings, messages });
      for await (const _part of result.fullStream) {
        // consume every part
      }
      items(turn, [...messages, ...(await result.responseMessages)]);
    };
  };
  const agent = aiSdkAgent({ name: 'ai-sdk', model, instructions: INSTRUCTIONS });
  return {
    name: 'ai-sdk',
    bare: { run: bareArm(false), stream: bareArm(true) },
    runtime: runtimeArms(agent, 'ai-sdk'),
  };
}

function langgraph(url: string): Framework {
  const llm = new ChatOpenAI({
    model: 'scripted-model',
    apiKey: 'bench',
    configuration: { baseURL: url },
    maxRetries: 0,
  });
  const prompt = INSTRUCTIONS;
  // The peer keeps history the LangGraph way, in a checkpointer by thread, as the runner does.
  const bareGraph = createReactAgent({
    llm,
    tools: [],
    prompt,
    checkpointSaver: new MemorySaver(),
  });
  const bareArm = (stream: boolean): Arm => {
    let prefix = 0;
    return async (turn, text) => {
      if (turn === 0) prefix += 1;
      const thread = `${stream}-${prefix}-${Math.floor(turn / TURNS_PER_SESSION)}`;
      const config = { configurable: { thread_id: thread } };
      const input = { messages: [new HumanMessage(text)] };
      if (!stream) {
        await bareGraph.invoke(input, config);
        return;
      }
      const chunks = await bareGraph.stream(input, {
        ...config,
        streamMode: ['messages', 'updates'],
      });
      for await (const _chunk of chunks) {
        // consume every chunk
      }
    };
  };
  const graph = createReactAgent({ llm, tools: [], prompt });
  const agent = langgraphAgent({ name: 'langgraph', graph });
  return {
    name: 'langgraph',
    bare: { run: bareArm(false), stream: bareArm(true) },
    runtime: runtimeArms(agent, 'langgraph'),
  };
}

export function frameworks(url: string): Framework[] {
  return [openai(url), aiSdk(url), langgraph(url)];
}
