import { describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import type { AgentsDeps } from '../../../lib/aws/wiring/agents-entry.js';
import { deploymentFor } from '../../../lib/aws/wiring/deployment.js';
import { Agent } from '../../../lib/core/index.js';
import { DynamoRunJournalStore, DynamoToolLedger } from '../../../lib/stores/index.js';
import type { RecordedRequest, ScriptedTurn } from '../../../lib/testing/index.js';
import { defineTool, Executor } from '../../../lib/tools/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { newTable } from '../stores/dynamo.js';
import { ChatRunner } from './chat-runner.js';

function respond(request: RecordedRequest): ScriptedTurn {
  const last = request.body.messages.at(-1);
  if (last.role === 'tool') return { text: `done: ${last.content}` };
  return { toolCalls: [{ name: 'count', arguments: {} }] };
}

const server = useScriptedModelServer({ fallback: respond });
const endpoint = inject('dynaliteEndpoint');

/** An agents entry as a deployment loads it: `createAgents(deps)` builds its Executor. */
function entry(runs: { n: number }) {
  const seen: AgentsDeps[] = [];
  const count = defineTool({
    name: 'count',
    description: 'Counts',
    input: z.object({}),
    handler: () => ++runs.n,
  });
  return {
    seen,
    createAgents: (deps: AgentsDeps) => {
      seen.push(deps);
      const executor = new Executor({ ...(deps.ledger ? { ledger: deps.ledger } : {}) });
      const runner = new ChatRunner([count], executor, server.url);
      return { agents: [new Agent({ name: 'chat', runner, native: null })] };
    },
  };
}

describe('the deployed path hands the agents entry its ledger, journal and tracer', () => {
  it("records the entry's calls in the deployment's DynamoDB ledger and journal", async () => {
    // Prepare
    const { tableName } = await newTable(endpoint);
    const env = { AWS_REGION: 'us-east-1', TABLE_NAME: tableName, DYNAMODB_ENDPOINT: endpoint };
    const runs = { n: 0 };
    const first = entry(runs);
    const deployment = await deploymentFor(first, ['TABLE_NAME'], env)();

    // Act
    const reply = await deployment.runtime.run('chat', 's1', 'count', { runId: 'job-1' });

    // Assess
    expect(first.seen[0]?.ledger).toBeInstanceOf(DynamoToolLedger);
    expect(first.seen[0]?.journal).toBeInstanceOf(DynamoRunJournalStore);
    expect(first.seen[0]?.journal).toBe(deployment.journal);
    expect(first.seen[0]?.tracer).toBe(deployment.tracer);
    expect(reply).toMatchObject({ status: 'completed', text: 'done: 1' });
    expect(await deployment.ledger.list('s1', 'job-1')).toMatchObject([
      { tool: 'count', outcome: 'ok' },
    ]);
    const journal = await deployment.journal.load('s1', 'job-1');
    expect(journal.map((e) => `${e.kind}:${e.kind === 'tool' ? e.status : ''}`)).toEqual([
      'model:',
      'tool:done',
    ]);
    expect(runs.n).toBe(1);
  });
});
