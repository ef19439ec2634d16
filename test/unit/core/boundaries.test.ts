import { describe, expect, it } from 'vitest';
import { BoundaryTracker, type StreamEvent } from '../../../lib/core/index.js';

const runId = 'r1';

describe('BoundaryTracker', () => {
  it('closes everything still open, innermost first', () => {
    // Prepare
    const tracker = new BoundaryTracker();
    const seen: StreamEvent[] = [
      { type: 'step-start', runId, stepId: 's1' },
      { type: 'reasoning-start', runId, reasoningId: 'r1' },
      { type: 'reasoning-end', runId, reasoningId: 'r1' },
      { type: 'message-start', runId, messageId: 'm1' },
      { type: 'text-delta', runId, messageId: 'm1', delta: 'hi' },
      { type: 'tool-call-start', runId, toolCallId: 't1', toolName: 'x' },
      { type: 'reasoning-start', runId, reasoningId: 'r2' },
    ];

    // Act
    for (const event of seen) tracker.observe(event);
    const closing = tracker.closeAll();

    // Assess
    expect(closing).toEqual([
      { type: 'reasoning-end', runId, reasoningId: 'r2' },
      { type: 'tool-call-end', runId, toolCallId: 't1' },
      { type: 'message-end', runId, messageId: 'm1' },
      { type: 'step-end', runId, stepId: 's1' },
    ]);
  });

  it('has nothing to close after every boundary ended, or after closeAll', () => {
    // Prepare
    const tracker = new BoundaryTracker();
    tracker.observe({ type: 'message-start', runId, messageId: 'm1' });
    tracker.observe({ type: 'tool-call-start', runId, toolCallId: 't1', toolName: 'x' });
    tracker.observe({ type: 'tool-call-end', runId, toolCallId: 't1' });
    tracker.observe({ type: 'message-end', runId, messageId: 'm1' });
    const other = new BoundaryTracker();
    other.observe({ type: 'step-start', runId, stepId: 's1' });
    other.closeAll();

    // Act
    const closing = [...tracker.closeAll(), ...other.closeAll()];

    // Assess
    expect(closing).toEqual([]);
  });

  it('keeps boundaries of different kinds with the same id apart', () => {
    // Prepare
    const tracker = new BoundaryTracker();
    tracker.observe({ type: 'message-start', runId, messageId: 'same' });
    tracker.observe({ type: 'step-start', runId, stepId: 'same' });

    // Act
    tracker.observe({ type: 'step-end', runId, stepId: 'same' });
    const closing = tracker.closeAll();

    // Assess
    expect(closing).toEqual([{ type: 'message-end', runId, messageId: 'same' }]);
  });
});
