import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ADK_INTEGRATION } from '../../../lib/frameworks/adk/index.js';
import { AI_SDK_INTEGRATION } from '../../../lib/frameworks/ai-sdk/index.js';
import type { Integration } from '../../../lib/frameworks/base/index.js';
import { LANGGRAPH_INTEGRATION } from '../../../lib/frameworks/langgraph/index.js';
import { MASTRA_INTEGRATION } from '../../../lib/frameworks/mastra/index.js';
import { OPENAI_INTEGRATION } from '../../../lib/frameworks/openai/index.js';
import { STRANDS_INTEGRATION } from '../../../lib/frameworks/strands/index.js';
import { defineTool, Executor } from '../../../lib/tools/index.js';

// Per-tool native options (ExportOptions.native): the framework's own tool settings beyond what
// a ToolSpec declares reach the native tool; keys the integration sets itself are refused.
const spec = defineTool({
  name: 'lookup',
  description: 'Looks a word up',
  input: z.object({ word: z.string() }),
  handler: ({ word }) => word,
});
const executor = new Executor();

type Case = [string, Integration, Record<string, unknown>, (tool: never) => unknown, string];
const CASES: Case[] = [
  [
    'openai',
    OPENAI_INTEGRATION,
    { timeoutMs: 1234 },
    (t: { timeoutMs?: number }) => t.timeoutMs,
    'needsApproval',
  ],
  [
    'ai-sdk',
    AI_SDK_INTEGRATION,
    { providerOptions: { openai: { strict: true } } },
    (t: { providerOptions?: unknown }) => t.providerOptions,
    'inputSchema',
  ],
  [
    'langgraph',
    LANGGRAPH_INTEGRATION,
    { returnDirect: true },
    (t: { returnDirect?: boolean }) => t.returnDirect,
    'func',
  ],
  [
    'adk',
    ADK_INTEGRATION,
    { isLongRunning: true },
    (t: { isLongRunning?: boolean }) => t.isLongRunning,
    'requireConfirmation',
  ],
  [
    'mastra',
    MASTRA_INTEGRATION,
    { providerOptions: { openai: { strict: true } } },
    (t: { providerOptions?: unknown }) => t.providerOptions,
    'requireApproval',
  ],
];

describe('ExportOptions.native: per-tool native options', () => {
  it.each(CASES)(
    '%s: a native option reaches the exported tool',
    (_name, integration, native, read) => {
      // Act
      const exported = integration.exportTool(spec, { executor, native });

      // Assess
      expect(read(exported as never)).toEqual(Object.values(native)[0]);
    },
  );

  it.each(CASES)(
    '%s: options given per spec apply to that spec only',
    (_name, integration, native, read) => {
      // Prepare
      const other = defineTool({
        name: 'other',
        description: 'Another tool',
        input: z.object({}),
        handler: () => 'x',
      });
      const perSpec = (s: { name: string }) => (s.name === 'lookup' ? native : undefined);

      // Act
      const [mine, theirs] = [spec, other].map((s) =>
        integration.exportTool(s, { executor, native: perSpec }),
      );

      // Assess
      expect(read(mine as never)).toEqual(Object.values(native)[0]);
      expect(read(theirs as never)).not.toEqual(Object.values(native)[0]);
    },
  );

  it.each([...CASES, ['strands', STRANDS_INTEGRATION, {}, () => undefined, 'callback'] as Case])(
    '%s: a key the integration sets itself is refused, naming key and tool',
    (name, integration, _native, _read, reserved) => {
      // Act
      const exportIt = () =>
        integration.exportTool(spec, { executor, native: { [reserved]: 'mine' } });

      // Assess
      expect(exportIt).toThrow(
        expect.objectContaining({
          code: 'reserved-tool-option',
          key: reserved,
          message: `Tool option "${reserved}" of "lookup" is reserved by the ${name} integration: it sets that key itself.`,
        }),
      );
    },
  );
});
