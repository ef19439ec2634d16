import type { StreamEvent } from './events.js';

/**
 * Tracks which messages, reasoning blocks, tool calls and steps are open, so a halted or failed
 * run can close them before its `run-error`: clients never see a dangling `*-start`.
 */
export class BoundaryTracker {
  // Insertion order is open order; closing walks it backwards.
  readonly #open = new Map<string, StreamEvent>();

  observe(event: StreamEvent): void {
    switch (event.type) {
      case 'message-start':
        this.#open.set(`m:${event.messageId}`, event);
        break;
      case 'message-end':
        this.#open.delete(`m:${event.messageId}`);
        break;
      case 'reasoning-start':
        this.#open.set(`r:${event.reasoningId}`, event);
        break;
      case 'reasoning-end':
        this.#open.delete(`r:${event.reasoningId}`);
        break;
      case 'tool-call-start':
        this.#open.set(`t:${event.toolCallId}`, event);
        break;
      case 'tool-call-end':
        this.#open.delete(`t:${event.toolCallId}`);
        break;
      case 'step-start':
        this.#open.set(`s:${event.stepId}`, event);
        break;
      case 'step-end':
        this.#open.delete(`s:${event.stepId}`);
        break;
      default:
        break;
    }
  }

  /** The events that close everything still open, innermost first. */
  closeAll(): StreamEvent[] {
    const closing: StreamEvent[] = [];
    for (const start of [...this.#open.values()].reverse()) {
      const { runId } = start;
      if (start.type === 'message-start') {
        closing.push({ type: 'message-end', runId, messageId: start.messageId });
      } else if (start.type === 'reasoning-start') {
        closing.push({ type: 'reasoning-end', runId, reasoningId: start.reasoningId });
      } else if (start.type === 'tool-call-start') {
        closing.push({ type: 'tool-call-end', runId, toolCallId: start.toolCallId });
      } else if (start.type === 'step-start') {
        closing.push({ type: 'step-end', runId, stepId: start.stepId });
      }
    }
    this.#open.clear();
    return closing;
  }
}
