import { HttpAgent } from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import { http, useLocalStack } from '../local/clients.js';

/**
 * What an AG-UI client can do after a drop (docs/protocol.md, "Reconnect on the other streams"):
 * @ag-ui/client's HttpAgent has no reconnect — `connectAgent()` calls `connect()`, which HttpAgent
 * does not implement, and the client swallows that: no request, nothing resumed. What our side
 * offers instead is checked here: the run's outcome from the events route.
 */
describe('AG-UI reconnect with @ag-ui/client', () => {
  const stack = useLocalStack();

  it('HttpAgent.connectAgent sends no request and resumes nothing; the run ended is read back from the events route', async () => {
    // Prepare: a run through POST /ag-ui, every request of the client counted
    const requests: string[] = [];
    const agent = new HttpAgent({
      url: `${stack.streamUrl}/ag-ui`,
      threadId: 'agr-t1',
      headers: { authorization: `Bearer ${await stack.tokenFor('agr-ann')}` },
      fetch: (url: string, init: RequestInit) => {
        requests.push(`${init.method ?? 'GET'} ${url}`);
        return fetch(url, init);
      },
    } as ConstructorParameters<typeof HttpAgent>[0]);
    const events: { type: string; runId?: string }[] = [];
    agent.addMessage({ id: 'm-0', role: 'user', content: 'hello there' });
    await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event as never) });
    const runId = events.find((e) => e.type === 'RUN_STARTED')?.runId as string;
    const messages = agent.messages.length;

    // Act: the client's reconnect
    const again: unknown[] = [];
    await agent.connectAgent({}, { onEvent: ({ event }) => void again.push(event) });

    // Assess: nothing was asked or received; the run's end is in its record
    expect(requests).toHaveLength(1);
    expect(again).toEqual([]);
    expect(agent.messages).toHaveLength(messages);
    const page = await http(stack, 'agr-ann', 'GET', `/sessions/agr-t1/runs/${runId}/events`);
    expect(page.body).toMatchObject({ ended: true });
    expect(page.body.messages.at(-1).events.map((e: { type: string }) => e.type)).toEqual([
      'run-finished',
    ]);
  });
});
