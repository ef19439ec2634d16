import type { Interrupt, InterruptResponseContentData, JSONValue } from '@strands-agents/sdk';
import * as z from 'zod';
import { SessionCorrupt } from '../../core/errors.js';
import type { Interruption } from '../../core/requests.js';
import type { Decision } from '../../core/runner.js';
import type { JsonValue } from '../../core/session.js';
import { gateDecision, gateInterruption } from '../../tools/guard.js';
import { APPROVAL_INTERRUPT, type GateReason, type GateResponse } from './gate.js';
import { SessionSlotStorage } from './state.js';

/**
 * A paused run: the SessionManager's storage as the pause left it (its snapshot holds Strands'
 * interrupt state and the pending tool calls), and which of our interruptions answers which
 * Strands interrupt.
 */
const PausedSchema = z.object({
  schemaVersion: z.literal(1),
  entries: z.record(z.string(), z.string()),
  interrupts: z.array(
    z.object({
      id: z.string(),
      interruptId: z.string(),
      /** The gate's call (absent for an interrupt a tool or hook raised itself). */
      toolUseId: z.string().optional(),
    }),
  ),
});

function gateReason(interrupt: Interrupt): GateReason | undefined {
  if (interrupt.name !== APPROVAL_INTERRUPT) return undefined;
  return interrupt.reason as unknown as GateReason;
}

/**
 * Our gate's interrupts are tool approvals named by the call id (`<callId>:unknown-outcome` for
 * a rerun decision); any other interrupt (a tool's `context.interrupt()`) asks for input.
 */
export function toInterruptions(interrupts: readonly Interrupt[]): Interruption[] {
  return interrupts.map((interrupt): Interruption => {
    const gate = gateReason(interrupt);
    if (gate) {
      return {
        ...gateInterruption(gate.toolUseId),
        kind: 'tool-approval',
        toolName: gate.toolName,
        ...(gate.arguments === undefined ? {} : { arguments: gate.arguments }),
      };
    }
    const reason = interrupt.reason;
    return {
      id: interrupt.id,
      kind: 'input',
      message: typeof reason === 'string' ? reason : interrupt.name,
      ...(reason !== undefined && typeof reason !== 'string' ? { arguments: reason } : {}),
    };
  });
}

export function pausedRun(
  storage: SessionSlotStorage,
  interrupts: readonly Interrupt[],
  interruptions: readonly Interruption[],
): JsonValue {
  const slot = storage.toSlot() as { entries: Record<string, string> };
  return {
    schemaVersion: 1,
    entries: slot.entries,
    interrupts: interrupts.map((interrupt, i) => {
      const toolUseId = gateReason(interrupt)?.toolUseId;
      return {
        id: interruptions[i]?.id ?? interrupt.id,
        interruptId: interrupt.id,
        ...(toolUseId ? { toolUseId } : {}),
      };
    }),
  };
}

/**
 * The storage to resume from (edited arguments written into every copy of the call in the
 * snapshot, so history and the call agree) and the interrupt responses to invoke with.
 */
export function resumeArgs(
  sessionId: string,
  paused: JsonValue,
  decisions: readonly Decision[],
): { storage: SessionSlotStorage; args: InterruptResponseContentData[] } {
  const parsed = PausedSchema.safeParse(paused);
  if (!parsed.success) {
    throw new SessionCorrupt(sessionId, `strands paused run: ${parsed.error.issues[0]?.message}`);
  }
  const storage = new SessionSlotStorage(parsed.data.entries);
  const args = parsed.data.interrupts.map((pending) => {
    const decision = pending.toolUseId
      ? gateDecision(decisions, pending.toolUseId)
      : decisions.find((d) => d.id === pending.id);
    if (pending.toolUseId && decision?.status === 'approved' && decision.arguments !== undefined) {
      const edited = decision.arguments;
      storage.mapJson((doc) => withToolInput(doc, pending.toolUseId ?? '', edited));
    }
    return {
      interruptResponse: {
        interruptId: pending.interruptId,
        response: responseOf(pending, decision),
      },
    };
  });
  return { storage, args };
}

function responseOf(
  pending: { toolUseId?: string | undefined },
  decision: Decision | undefined,
): JSONValue {
  if (pending.toolUseId) {
    const response: GateResponse = {
      status: decision?.status ?? 'denied',
      ...(decision?.message ? { message: decision.message } : {}),
      ...(decision?.arguments !== undefined ? { arguments: decision.arguments } : {}),
    };
    return response as unknown as JSONValue;
  }
  // A tool's own interrupt reads the person's answer: the arguments, or the bare decision.
  return (decision?.arguments ?? decision?.status ?? 'denied') as JSONValue;
}

/** Every `toolUse` block (and gate reason) of the call, its input replaced. */
function withToolInput(value: unknown, toolUseId: string, input: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => withToolInput(v, toolUseId, input));
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(record)) out[key] = withToolInput(v, toolUseId, input);
  if (record.toolUseId === toolUseId && 'input' in record) out.input = input;
  return out;
}
