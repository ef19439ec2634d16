import type { Agent as MastraAgent } from '@mastra/core/agent';

// biome-ignore lint/suspicious/noExplicitAny: Mastra's Agent is invariant in its request context (and in id, tools and output), so only Agent<any, any, any, any> holds every user agent; Mastra defaults that parameter to `any` itself for the same reason (see its Agent declaration).
export type MastraNativeAgent = MastraAgent<any, any, any, any>;
