import { describe, expect, it } from 'vitest';
import {
  AgentKernelError,
  type JournalRecords,
  type RunJournal,
  type RunJournalStore,
  Runtime,
  tryToolContext,
} from '../../../lib/core/index.js';
import { InMemoryRunJournalStore, InMemorySessionStore } from '../../../lib/stores/index.js';
import { collect, FakeRunner, failureOf, fakeAgent, last } from './fake-runner.js';

/** The memory journal store, logging which runs were loaded. */
class LoggingStore implements RunJournalStore {
  readonly inner = new InMemoryRunJournalStore();
  readonly loads: string[] = [];
  load(sessionId: string, runId: string) {
    this.loads.push(runId);
    return this.inner.load(sessionId, runId);
  }
  startCall(
    sessionId: string,
    runId: string,
    callId: string,
    tool: string,
    records?: JournalRecords,
  ) {
    return this.inner.startCall(sessionId, runId, callId, tool, records);
  }
  record(sessionId: string, runId: string, records: JournalRecords) {
    return this.inner.record(sessionId, runId, records);
  }
}

function setup(options: { redact?: (text: string) => string } = {}) {
  const runner = new FakeRunner();
  const journal = new LoggingStore();
  let ids = 0;
  const runtime = new Runtime({
    sessions: new InMemorySessionStore(),
    agents: [fakeAgent(runner)],
    journal: journal,
    newId: () => `gen-${++ids}`,
    ...options,
  });
  return { runner, journal, runtime };
}

describe('Runtime with a run journal', () => {
  it("puts the run's journal in the tool context, replaying what an earlier attempt did", async () => {
    // Prepare
    const { runner, journal, runtime } = setup();
    await journal.inner.putModel('s1', 'job-1', 'k1', { callId: 'call-a' });
    const seen: (RunJournal | undefined)[] = [];
    runner.script({ steps: [{ call: () => seen.push(tryToolContext()?.journal) }] });

    // Act
    await runtime.run('echo', 's1', 'hi', { runId: 'job-1' });

    // Assess
    expect(seen[0]?.runId).toBe('job-1');
    expect(seen[0]?.recordedModel('k1')).toEqual({ callId: 'call-a' });
    expect(journal.loads).toEqual(['job-1']);
  });

  it('reads no journal for a run id it generated, nor when the caller says replay: false', async () => {
    // Prepare
    const { runner, journal, runtime } = setup();
    const seen: (RunJournal | undefined)[] = [];
    const capture = { steps: [{ call: () => seen.push(tryToolContext()?.journal) }] };
    runner.script(capture, capture, capture);

    // Act
    await runtime.run('echo', 's1', 'one');
    await collect(runtime.stream('echo', 's1', 'two'));
    await runtime.run('echo', 's1', 'three', { runId: 'job-9', replay: false });

    // Assess
    expect(journal.loads).toEqual([]);
    expect(seen.map((j) => j?.runId)).toEqual(['gen-1', 'gen-2', 'job-9']);
  });

  it('streams a caller run id with replay by default', async () => {
    // Prepare
    const { journal, runtime } = setup();

    // Act
    await collect(runtime.stream('echo', 's1', 'hi', { runId: 'job-2' }));

    // Assess
    expect(journal.loads).toEqual(['job-2']);
  });
});

describe('Runtime redaction', () => {
  const redact = (text: string) => text.replaceAll('sk-canary-123', '[REDACTED]');
  const failing = () => ({
    steps: [{ fail: new Error('upstream said: bad key sk-canary-123') }],
  });

  it('redacts the message of a thrown error and keeps its type', async () => {
    // Prepare
    const { runner, runtime } = setup({ redact });
    runner.script(failing());

    // Act
    const err = await failureOf(runtime.run('echo', 's1', 'hi'));

    // Assess
    expect(err).toBeInstanceOf(AgentKernelError);
    expect(err.code).toBe('runner-error');
    expect(err.message).toContain('[REDACTED]');
    expect(err.message).not.toContain('sk-canary-123');
  });

  it('redacts run-error events, and errors raised before the turn starts', async () => {
    // Prepare
    const { runner, runtime } = setup({ redact });
    runner.script(failing());

    // Act
    const events = await collect(runtime.stream('echo', 's1', 'hi'));
    const early = await collect(runtime.stream('sk-canary-123', 's1', 'hi'));
    const thrown = await failureOf(runtime.run('sk-canary-123', 's1', 'hi'));

    // Assess
    expect(last(events, 'run-error').message).toBe(
      'Agent "echo" failed: upstream said: bad key [REDACTED]',
    );
    expect(last(early, 'run-error')).toMatchObject({ code: 'agent-not-found' });
    expect(last(early, 'run-error').message).not.toContain('sk-canary-123');
    expect(thrown.message).not.toContain('sk-canary-123');
  });
});

describe('a tool result the journal answered', () => {
  it('is marked replayed on its tool-call-result; a call that ran is not', async () => {
    // Prepare: call-a ran in an earlier attempt of job-3; call-b is new.
    const { runner, journal, runtime } = setup();
    await journal.inner.startCall('s1', 'job-3', 'call-a', 'book');
    await journal.inner.finishCall('s1', 'job-3', 'call-a', { ok: true, result: 'booked' });
    const ran: string[] = [];
    const callTool = (callId: string) => async () => {
      const result = await tryToolContext()?.journal?.tool({ callId, tool: 'book' }, async () => {
        ran.push(callId);
        return 'booked again';
      });
      return result;
    };
    const result = (callId: string) => ({
      event: {
        type: 'tool-call-result' as const,
        toolCallId: callId,
        toolName: 'book',
        result: 'x',
      },
    });
    runner.script({
      steps: [
        { call: callTool('call-a') },
        result('call-a'),
        { call: callTool('call-b') },
        result('call-b'),
      ],
    });

    // Act
    const events = await collect(runtime.stream('echo', 's1', 'hi', { runId: 'job-3' }));

    // Assess
    const results = events.filter((e) => e.type === 'tool-call-result');
    expect(results.map((e) => [e.toolCallId, 'replayed' in e ? e.replayed : undefined])).toEqual([
      ['call-a', true],
      ['call-b', undefined],
    ]);
    expect(ran).toEqual(['call-b']);
    const entries = await journal.inner.load('s1', 'job-3');
    const b = entries.find((e) => e.kind === 'tool' && e.callId === 'call-b');
    expect(b).toMatchObject({ status: 'done' });
    expect(b?.kind === 'tool' && (b.doneAt ?? -1) >= b.at).toBe(true);
  });
});
