import { AIMessage, type BaseMessage, isAIMessage, ToolMessage } from '@langchain/core/messages';
import { Command, getCurrentTaskInput } from '@langchain/langgraph';
import type { ToolApproval } from '../../core/tool-context.js';

/**
 * An approved call run with the approver's edited arguments: the tool answers with a `Command`
 * that also rewrites the model's message holding the call (same id, so LangGraph's messages
 * reducer replaces it in place), so the history shows the call as approved, not as first asked.
 * Every edit of that message is applied, so parallel edited calls agree. `undefined` when the
 * call was not edited or the node's input has no such message (a custom node: the result only).
 */
export function editedCallCommand(
  callId: string,
  toolName: string,
  content: string,
  status: 'success' | 'error',
  decisions: Readonly<Record<string, ToolApproval>> | undefined,
): Command | undefined {
  if (decisions?.[callId]?.arguments === undefined) return undefined;
  const asked = messageWithCall(callId);
  if (!asked) return undefined;
  const toolCalls = (asked.tool_calls ?? []).map((call) => {
    const edit = call.id ? decisions[call.id] : undefined;
    return edit?.status === 'approved' && isRecord(edit.arguments)
      ? { ...call, args: edit.arguments }
      : call;
  });
  // Providers serialise `tool_calls`; the raw copy in additional_kwargs would repeat the original.
  const { tool_calls: _raw, ...kwargs } = asked.additional_kwargs ?? {};
  const edited = new AIMessage({
    content: asked.content,
    ...(asked.id ? { id: asked.id } : {}),
    ...(asked.name ? { name: asked.name } : {}),
    tool_calls: toolCalls,
    additional_kwargs: kwargs,
    response_metadata: asked.response_metadata,
    ...(asked.usage_metadata ? { usage_metadata: asked.usage_metadata } : {}),
  });
  const result = new ToolMessage({ content, tool_call_id: callId, name: toolName, status });
  return new Command({ update: { messages: [edited, result] } });
}

function messageWithCall(callId: string): AIMessage | undefined {
  let input: unknown;
  try {
    input = getCurrentTaskInput();
  } catch {
    return undefined; // not inside a graph node
  }
  const messages = Array.isArray(input)
    ? input
    : (input as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as BaseMessage;
    if (isAIMessage(message) && message.id && message.tool_calls?.some((c) => c.id === callId)) {
      return message;
    }
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
