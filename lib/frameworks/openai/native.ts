import type { FunctionTool, Agent as OpenAIAgent, ToolInputParameters } from '@openai/agents';

// biome-ignore lint/suspicious/noExplicitAny: @openai/agents' Agent is invariant in its context and output types, so only Agent<any, any> holds every user agent (the SDK bounds run() and RunState by it too)
export type NativeOpenAIAgent = OpenAIAgent<any, any>;

/** A function tool of any agent, as the guard sees it: context, input and result opaque. */
export type NativeFunctionTool = FunctionTool<unknown, ToolInputParameters, unknown>;
