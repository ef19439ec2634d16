import { appendFileSync } from 'node:fs';
import { Agent as SdkAgent, tool } from '@openai/agents';
import * as z from 'zod';
import { OpenAIIntegration } from '../../../lib/frameworks/openai/tools.js';
import { defineTool, Executor } from '../../../lib/tools/index.js';

/**
 * The two `writer` agents of the fault tests, both asking the model for `append_line`, whose
 * every run appends one line to `effectsFile` (count its lines to count real tool runs):
 * `writer` has it as the SDK's native `tool()` (the runner's native guard), `spec-writer` as a
 * ToolSpec run by an Executor (the executor's guard), `approving-writer` as a native tool that
 * pauses the run for a person's approval first.
 */
export function writerAgents(effectsFile: string | undefined): SdkAgent[] {
  const append = (line: string) => {
    if (effectsFile) appendFileSync(effectsFile, `${line}\n`);
    return 'appended';
  };
  const native = tool({
    name: 'append_line',
    description: 'Append a line to the journal',
    parameters: z.object({ line: z.string() }),
    execute: async ({ line }) => append(line),
  });
  const gated = tool({
    name: 'append_line',
    description: 'Append a line to the journal',
    parameters: z.object({ line: z.string() }),
    needsApproval: true,
    execute: async ({ line }) => append(line),
  });
  const spec = defineTool({
    name: 'append_line',
    description: 'Append a line to the journal',
    input: z.object({ line: z.string() }),
    handler: ({ line }) => append(line),
  });
  const exported = new OpenAIIntegration().exportTool(spec, { executor: new Executor() });
  return [
    new SdkAgent({ name: 'writer', model: 'scripted-model', tools: [native] }),
    new SdkAgent({ name: 'spec-writer', model: 'scripted-model', tools: [exported] }),
    new SdkAgent({ name: 'approving-writer', model: 'scripted-model', tools: [gated] }),
  ];
}
