import { HttpAgent } from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import type { LocalStack } from '../../../lib/local/stack.js';
import { http, useLocalStack } from '../local/clients.js';

/** The real AG-UI client against the stream function's `/ag-ui`, recording every event. */
async function agentFor(stack: LocalStack, principal: string, threadId: string, token?: string) {
  const agent = new HttpAgent({
    url: `${stack.streamUrl}/ag-ui`,
    threadId,
    headers: { authorization: `Bearer ${token ?? (await stack.tokenFor(principal))}` },
  });
  const events: any[] = [];
  const say = async (content: string) => {
    agent.addMessage({ id: `m-${agent.messages.length}`, role: 'user', content });
    return agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
  };
  return { agent, events, say };
}

const types = (events: any[]) => events.map((e) => e.type);

describe('POST /ag-ui with @ag-ui/client HttpAgent (local Function URL)', () => {
  const stack = useLocalStack();

  it('streams a run: RUN_STARTED, text message events, RUN_FINISHED success', async () => {
    // Act
    const { events, say, agent } = await agentFor(stack, 'ag-ann', 'ag-t1');
    await say('hello there');

    // Assess: the client's own verification passed (it threw otherwise) and built the message
    expect(types(events)[0]).toBe('RUN_STARTED');
    expect(types(events)).toContain('TEXT_MESSAGE_CONTENT');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(events[0].threadId).toBe('ag-t1');
    const reply = agent.messages.at(-1) as any;
    expect(reply.role).toBe('assistant');
    expect(reply.content).toContain('hello there');
    const session = await http(stack, 'ag-ann', 'GET', '/sessions/ag-t1');
    expect(session.body.turns).toBe(1);
  });

  it('streams a tool call: start, args, end, result', async () => {
    const { events, say } = await agentFor(stack, 'ag-ben', 'ag-t2');
    await say('What time is it in UTC?');
    const tool = types(events).filter((t) => t.startsWith('TOOL_CALL'));
    expect(tool[0]).toBe('TOOL_CALL_START');
    expect(tool).toContain('TOOL_CALL_ARGS');
    expect(tool).toContain('TOOL_CALL_END');
    expect(tool.at(-1)).toBe('TOOL_CALL_RESULT');
    expect(events.find((e) => e.type === 'TOOL_CALL_START').toolCallName).toBe('get_time');
  });

  it('pauses as an interrupt outcome and resumes through RunAgentInput.resume', async () => {
    // Prepare: a booking waits for approval
    const { events, say, agent } = await agentFor(stack, 'ag-cat', 'ag-t3');
    await say('Book a table for 2 at 8pm');
    const finished = events.at(-1);
    expect(finished.type).toBe('RUN_FINISHED');
    expect(finished.outcome.type).toBe('interrupt');
    const interrupt = finished.outcome.interrupts[0];
    expect(interrupt.reason).toBe('tool_call');

    // Act: approve it the AG-UI way
    events.length = 0;
    await agent.runAgent(
      { resume: [{ interruptId: interrupt.id, status: 'resolved' }] },
      { onEvent: ({ event }) => void events.push(event) },
    );

    // Assess: the booking ran, and the run finished with success; the session is no longer paused
    expect(types(events)).toContain('TOOL_CALL_RESULT');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const session = await http(stack, 'ag-cat', 'GET', '/sessions/ag-t3');
    expect(session.body.paused).toEqual([]);
  });

  it('refuses an unknown agent before streaming: HTTP 404 agent-not-found', async () => {
    const { agent } = await agentFor(stack, 'ag-fay', 'ag-t6');
    agent.addMessage({ id: 'm-0', role: 'user', content: 'hi' });
    await expect(agent.runAgent({ forwardedProps: { agent: 'no-such-agent' } })).rejects.toThrow(
      /404.*agent-not-found/,
    );
  });

  it('refuses a bad token: the client fails, nothing runs', async () => {
    const { say } = await agentFor(stack, 'ag-eve', 'ag-t5', 'forged');
    await expect(say('hello')).rejects.toThrow(/401/);
    const owner = await stack.tokenFor('ag-eve');
    const read = await fetch(`${stack.httpUrl}/sessions/ag-t5`, {
      headers: { authorization: `Bearer ${owner}` },
    });
    expect(read.status).toBe(404);
  });
});
