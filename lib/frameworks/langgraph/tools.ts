import { ToolMessage } from '@langchain/core/messages';
import { DynamicStructuredTool } from '@langchain/core/tools';
import type { JSONSchema } from '@langchain/core/utils/json_schema';
import { interrupt, isGraphBubbleUp } from '@langchain/langgraph';
import { type ToolApproval, type ToolContext, tryToolContext } from '../../core/tool-context.js';
import { ApprovalPending, isModelVisibleError } from '../../tools/errors.js';
import { UNKNOWN_OUTCOME_PROMPT, unknownOutcomeId } from '../../tools/guard.js';
import type { AnyToolSpec } from '../../tools/spec.js';
import { type ExportOptions, IntegrationBase } from '../base/integration.js';
import { editedCallCommand } from './edited-call.js';
import { UnguardedToolCall } from './errors.js';

/** What a `confirm` tool's `interrupt()` carries; the runner turns it into an interruption. */
export interface ApprovalInterrupt {
  readonly kind: 'tool-approval';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly arguments: unknown;
  /** The interruption's id when it is not the call id (`<callId>:unknown-outcome`). */
  readonly interruptionId?: string;
  /** Why a person is asked, when it is not the call's first approval. */
  readonly message?: string;
}

/**
 * The interrupt of a call whose earlier execution never finished and whose tool asks before it
 * runs again (`onUnknownOutcome: 'pause'`): answered, the decision is under its own id.
 */
export function rerunInterrupt(callId: string, toolName: string, args: unknown): ToolApproval {
  return interrupt<ApprovalInterrupt, ToolApproval>({
    kind: 'tool-approval',
    toolCallId: callId,
    toolName,
    arguments: args,
    interruptionId: unknownOutcomeId(callId),
    message: UNKNOWN_OUTCOME_PROMPT,
  });
}

/**
 * A LangChain tool whose calls skip LangChain's own JSON Schema check: validation is the
 * executor's, so the model reads our invalid-arguments error and the call is in the ledger.
 */
export class SpecTool extends DynamicStructuredTool<JSONSchema> {
  override call(...args: Parameters<DynamicStructuredTool<JSONSchema>['call']>) {
    const schema = this.schema;
    // LangChain validates synchronously, before its first await: an empty schema lets all in.
    this.schema = {} as typeof schema;
    try {
      return super.call(...args);
    } finally {
      this.schema = schema;
    }
  }
}

/** The native tool's options the integration sets itself. */
const RESERVED_TOOL_OPTIONS = ['name', 'description', 'schema', 'func'];

/**
 * ToolSpec → LangChain tool for LangGraph. Every call goes through the executor with the
 * model's tool call id (`config.toolCall.id`) as `ctx.callId`. A `confirm` tool asks through
 * LangGraph's `interrupt()` (the run pauses; `Command({ resume })` answers with a decision)
 * unless an approval port was bound before export. Failures go through LangChain's tool-error
 * channel: a ToolMessage with status "error" whose content is the model-visible error (JSON),
 * never the raw exception text.
 */
export class LangGraphIntegration extends IntegrationBase<SpecTool> {
  readonly name = 'langgraph';
  readonly requires = ['@langchain/langgraph', '@langchain/core'] as const;
  readonly extra = '@langchain/langgraph';
  protected override readonly callIdFields = ['toolCall.id'];

  exportTool(spec: AnyToolSpec, options: ExportOptions = {}): SpecTool {
    const nativeGate = spec.confirm && !this.approvalPort;
    return new SpecTool({
      ...this.nativeOptions(spec, options, RESERVED_TOOL_OPTIONS),
      name: spec.name,
      description: spec.description,
      schema: spec.jsonSchema() as JSONSchema,
      func: async (args: unknown, _runManager: unknown, config: unknown) => {
        // A custom node's `invoke(args)`: the call has no id a retried run would find again.
        const called = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id;
        if (!called && tryToolContext()?.journal && !spec.effects?.readOnly) {
          throw new UnguardedToolCall(spec.name);
        }
        let approval: ToolApproval | undefined;
        if (nativeGate) {
          // Outside runBound: interrupt() throws LangGraph's control-flow error to pause.
          const { callId } = this.bindContext(config);
          approval = interrupt<ApprovalInterrupt, ToolApproval>({
            kind: 'tool-approval',
            toolCallId: callId,
            toolName: spec.name,
            arguments: args,
          });
        }
        const overrides = approval ? { approval } : {};
        const result = await this.#runOrAsk(spec, args, config, options, overrides);
        const text = typeof result === 'string' ? result : JSON.stringify(result ?? null);
        const callId = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id;
        const status = isModelVisibleError(result) ? 'error' : 'success';
        const edited =
          callId && approval
            ? editedCallCommand(callId, spec.name, text, status, tryToolContext()?.decisions)
            : undefined;
        if (edited) return edited;
        // LangChain's tool-error channel: a ToolMessage with status "error" (when called by id).
        if (callId && isModelVisibleError(result)) {
          return new ToolMessage({
            content: text,
            tool_call_id: callId,
            name: spec.name,
            status: 'error',
          });
        }
        return text;
      },
    });
  }

  /**
   * A call the journal asks a person about (its outcome unknown, its tool `pause`) pauses the
   * graph with `interrupt()`; resumed, the node runs again and the executor reads the decision.
   */
  async #runOrAsk(
    spec: AnyToolSpec,
    args: unknown,
    config: unknown,
    options: ExportOptions,
    overrides: Partial<ToolContext>,
  ): Promise<unknown> {
    try {
      return await this.#interruptible(spec, args, config, options, overrides);
    } catch (err) {
      const { callId } = this.bindContext(config);
      if (!(err instanceof ApprovalPending) || err.interruption.id !== unknownOutcomeId(callId)) {
        throw err;
      }
      const decision = rerunInterrupt(callId, spec.name, args);
      const decisions = { ...tryToolContext()?.decisions, [err.interruption.id]: decision };
      return this.#interruptible(spec, args, config, options, { ...overrides, decisions });
    }
  }

  /**
   * A handler that calls `interrupt()` pauses the graph, never fails the call: its execution is
   * recorded as interrupted, and resumed (LangGraph runs the node again) the call is journaled
   * under the next key (`<callId>#1`, …), so it runs with the answer instead of replaying the pause.
   */
  async #interruptible(
    spec: AnyToolSpec,
    args: unknown,
    config: unknown,
    options: ExportOptions,
    overrides: Partial<ToolContext>,
  ): Promise<unknown> {
    const { callId } = this.bindContext(config);
    for (let level = 0; ; level++) {
      let raised: unknown;
      const handler: AnyToolSpec['handler'] = async (input, ctx) => {
        try {
          return await spec.handler(input, ctx);
        } catch (err) {
          if (!isGraphBubbleUp(err)) throw err;
          raised = err;
          return INTERRUPTED;
        }
      };
      const entry = level > 0 ? `${callId}#${level}` : undefined;
      const result = await this.runBound(
        { ...spec, handler },
        args,
        config,
        options,
        overrides,
        entry,
      );
      if (raised) throw raised;
      if (!isInterrupted(result)) return result;
    }
  }

  protected override passesThrough(err: unknown): boolean {
    return isGraphBubbleUp(err);
  }
}

/** What the journal records for a ToolSpec call whose handler paused the graph. */
const INTERRUPTED = { 'agent-kernel': 'interrupted' } as const;

function isInterrupted(value: unknown): boolean {
  return (value as Record<string, unknown> | null)?.['agent-kernel'] === 'interrupted';
}

/** What discovery loads (`getIntegration('langgraph')`). */
export const INTEGRATION = new LangGraphIntegration();
