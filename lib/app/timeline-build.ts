import type { StreamEvent } from '../core/events.js';
import type { JournalEntry, ToolEntry } from '../core/journal.js';
import type { Usage } from '../core/requests.js';
import { costOf, type PriceRow } from './model-prices.js';
import type { StoredBatch } from './ports/run-events.js';

/**
 * A run's timeline, built from what is stored of it and nothing else: the stored events (their
 * order, their batch's `at`, step usage, `replayed` results), the journal (when a tool call
 * started and finished, whether it ran) and the run record (start, end). Times of items read
 * from events are those of the batch that carried them (delivery batches events up to
 * EVENT_BATCH_MAX_DELAY_MS), so durations from events are `timing: 'events'`, coarser than the
 * journal's `timing: 'journal'` ones.
 */

interface Span {
  /** The attempt (0 = the first; each `run-started` begins one: a retry or a resume). */
  attempt: number;
  startAt: number;
  endAt: number;
  durationMs: number;
  /** The stored seqs the item's events came in. */
  seqs: { from: number; to: number };
}

export interface ModelItem extends Span {
  kind: 'model';
  stepId: string;
  usage?: Usage;
  /** USD, an estimate at the run's price row. */
  costUsd?: number;
  /** The text the step streamed, cut at 500 characters. */
  text?: string;
}

export interface ToolItem extends Span {
  kind: 'tool';
  callId: string;
  toolName: string;
  /** The arguments as the model streamed them (JSON when they parse). */
  arguments?: unknown;
  result?: unknown;
  isError?: boolean;
  /** Answered from the journal: an earlier attempt ran it. */
  replayed: boolean;
  /** When the model asked for the call (its first event), if the journal says it ran later. */
  requestedAt?: number;
  /** The journal recorded the call starting (undefined: a call the journal does not keep). */
  journal?: { status: ToolEntry['status']; startedAt: number; doneAt?: number };
  timing: 'journal' | 'events';
}

export interface PauseItem extends Span {
  kind: 'pause';
  interruptions: { id: string; kind: string; toolName?: string; arguments?: unknown }[];
}

export interface DecisionItem extends Span {
  kind: 'decision';
  /** Per interruption: approved (the call ran under the journal) or denied (it never ran). */
  decisions: { id: string; toolName?: string; outcome: 'approved' | 'denied' | 'unknown' }[];
}

export interface NoteItem extends Span {
  kind: 'retry' | 'error' | 'finish';
  code?: string;
  message?: string;
}

export type TimelineItem = ModelItem | ToolItem | PauseItem | DecisionItem | NoteItem;

export interface Totals {
  modelCalls: number;
  toolCalls: number;
  replayedCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

const TEXT_MAX = 500;

function span(attempt: number, at: number, seq: number): Span {
  return { attempt, startAt: at, endAt: at, durationMs: 0, seqs: { from: seq, to: seq } };
}

function extend(item: Span, at: number, seq: number): void {
  item.endAt = Math.max(item.endAt, at);
  item.durationMs = item.endAt - item.startAt;
  item.seqs.to = seq;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function buildTimeline(
  batches: readonly StoredBatch[],
  journal: readonly JournalEntry[],
  price: PriceRow,
  fallbackAt: number,
): { items: TimelineItem[]; totals: Totals } {
  const calls = new Map<string, ToolEntry>();
  for (const entry of journal) if (entry.kind === 'tool') calls.set(entry.callId, entry);
  const items: TimelineItem[] = [];
  const steps = new Map<string, ModelItem>();
  const tools = new Map<string, ToolItem>();
  const args = new Map<string, string>();
  const texts = new Map<string, ModelItem>();
  let attempt = -1;
  let step: ModelItem | undefined;
  let pause: PauseItem | undefined;
  let at = fallbackAt;
  for (const batch of batches) {
    at = batch.at ?? at;
    const { seq } = batch;
    for (const event of batch.events) {
      if (event.type === 'run-started') {
        attempt += 1;
        if (pause) items.push(decisionAfter(pause, attempt, at, seq, calls));
        pause = undefined;
        continue;
      }
      const current = Math.max(attempt, 0);
      const tool = toolEvent(event, { tools, args }, items, current, at, seq);
      if (tool) continue;
      switch (event.type) {
        case 'step-start': {
          step = { kind: 'model', stepId: event.stepId, ...span(current, at, seq) };
          steps.set(`${current}:${event.stepId}`, step);
          items.push(step);
          break;
        }
        case 'step-end': {
          const open = steps.get(`${current}:${event.stepId}`);
          if (open) {
            extend(open, at, seq);
            if (event.usage) {
              open.usage = event.usage;
              open.costUsd = costOf(event.usage, price);
            }
          }
          step = undefined;
          break;
        }
        case 'message-start':
          if (step) texts.set(event.messageId, step);
          break;
        case 'text-delta': {
          const owner = texts.get(event.messageId) ?? step;
          if (owner && (owner.text ?? '').length < TEXT_MAX) {
            owner.text = `${owner.text ?? ''}${event.delta}`.slice(0, TEXT_MAX);
          }
          break;
        }
        case 'run-paused':
          pause = {
            kind: 'pause',
            interruptions: event.interruptions.map((i) => ({
              id: i.id,
              kind: i.kind,
              ...(i.toolName === undefined ? {} : { toolName: i.toolName }),
              ...(i.arguments === undefined ? {} : { arguments: i.arguments }),
            })),
            ...span(current, at, seq),
          };
          items.push(pause);
          break;
        case 'run-retrying':
        case 'run-error': {
          const kind = event.type === 'run-error' ? 'error' : 'retry';
          const { code, message } = event;
          items.push({ kind, code, message, ...span(current, at, seq) });
          break;
        }
        case 'run-finished':
          items.push({ kind: 'finish', ...span(current, at, seq) });
          break;
      }
    }
  }
  for (const tool of tools.values())
    finishTool(tool, args.get(tool.callId), calls.get(tool.callId));
  return { items, totals: totalsOf(items) };
}

/** Folds one tool-call event into its item; false when `event` is no tool-call event. */
function toolEvent(
  event: StreamEvent,
  open: { tools: Map<string, ToolItem>; args: Map<string, string> },
  items: TimelineItem[],
  attempt: number,
  at: number,
  seq: number,
): boolean {
  if (!event.type.startsWith('tool-call-')) return false;
  const id = (event as { toolCallId: string }).toolCallId;
  let tool = open.tools.get(id);
  if (!tool) {
    const toolName = (event as { toolName?: string }).toolName ?? 'a tool';
    tool = {
      kind: 'tool',
      callId: id,
      toolName,
      replayed: false,
      timing: 'events',
      ...span(attempt, at, seq),
    };
    open.tools.set(id, tool);
    items.push(tool);
  }
  extend(tool, at, seq);
  if (event.type === 'tool-call-args') open.args.set(id, (open.args.get(id) ?? '') + event.delta);
  if (event.type === 'tool-call-result') {
    tool.result = event.result;
    if (event.isError) tool.isError = true;
    if (event.replayed) tool.replayed = true;
  }
  return true;
}

function finishTool(tool: ToolItem, args: string | undefined, entry: ToolEntry | undefined) {
  if (args) tool.arguments = parsed(args);
  if (!entry) return;
  tool.journal = {
    status: entry.status,
    startedAt: entry.at,
    ...(entry.doneAt === undefined ? {} : { doneAt: entry.doneAt }),
  };
  if (entry.doneAt !== undefined && !tool.replayed) {
    // The journal's clock is the tool's own: it ran then (after an approval, maybe much later).
    tool.timing = 'journal';
    if (entry.at !== tool.startAt) tool.requestedAt = tool.startAt;
    tool.startAt = entry.at;
    tool.endAt = entry.doneAt;
    tool.durationMs = Math.max(0, entry.doneAt - entry.at);
  }
}

/** A resume after `pause`: what became of each call it waited on, read from the journal. */
function decisionAfter(
  pause: PauseItem,
  attempt: number,
  at: number,
  seq: number,
  calls: Map<string, ToolEntry>,
): DecisionItem {
  const decisions = pause.interruptions.map((i) => {
    const entry = calls.get(i.id);
    const outcome: DecisionItem['decisions'][number]['outcome'] =
      i.kind !== 'tool-approval' ? 'unknown' : entry ? 'approved' : 'denied';
    return { id: i.id, ...(i.toolName ? { toolName: i.toolName } : {}), outcome };
  });
  const item: DecisionItem = { kind: 'decision', decisions, ...span(attempt, pause.endAt, seq) };
  // From the pause to the resume's first stored events: how long the run waited.
  extend(item, at, seq);
  return item;
}

function totalsOf(items: readonly TimelineItem[]): Totals {
  const totals: Totals = {
    modelCalls: 0,
    toolCalls: 0,
    replayedCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
  };
  for (const item of items) {
    if (item.kind === 'model') {
      totals.modelCalls += 1;
      totals.inputTokens += item.usage?.inputTokens ?? 0;
      totals.outputTokens += item.usage?.outputTokens ?? 0;
      totals.costUsd += item.costUsd ?? 0;
    } else if (item.kind === 'tool') {
      totals.toolCalls += 1;
      if (item.replayed) totals.replayedCalls += 1;
    }
  }
  return totals;
}
