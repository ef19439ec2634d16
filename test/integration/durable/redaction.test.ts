import { describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import { buildDeployment } from '../../../lib/aws/wiring/deployment.js';
import { Agent, AgentKernelError, type StreamEvent } from '../../../lib/core/index.js';
import { defineTool, Executor } from '../../../lib/tools/index.js';
import { Redactor } from '../../../lib/tracing/redact.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { newClient, newTable } from '../stores/dynamo.js';
import { ChatRunner } from './chat-runner.js';

const CANARY = 'canary-key-7f3a9c1e5b2d4086';
const server = useScriptedModelServer();
const endpoint = inject('dynaliteEndpoint');

async function deployment() {
  const { tableName } = await newTable(endpoint);
  const noop = defineTool({
    name: 'noop',
    description: 'x',
    input: z.object({}),
    handler: () => 1,
  });
  const runner = new ChatRunner([noop], new Executor(), server.url);
  return buildDeployment(
    loadConfig({ TABLE_NAME: tableName, DYNAMODB_ENDPOINT: endpoint }),
    { agents: [new Agent({ name: 'chat', runner, native: null })] },
    { client: newClient(endpoint), redactor: new Redactor({ secrets: [CANARY] }) },
  );
}

describe("the deployment's runtime redacts errors with the function's redactor", () => {
  it('hides a key the model server echoes in an error body, thrown and streamed', async () => {
    // Prepare
    const { runtime } = await deployment();
    const echo = { error: { status: 401, message: `Incorrect API key provided: ${CANARY}` } };
    server.push(echo, echo);

    // Act
    const thrown = await runtime.run('chat', 's1', 'hi').catch((e: unknown) => e);
    const events: StreamEvent[] = [];
    for await (const event of runtime.stream('chat', 's2', 'hi')) events.push(event);

    // Assess
    expect(server.requests).toHaveLength(2);
    expect(thrown).toBeInstanceOf(AgentKernelError);
    expect((thrown as Error).message).toContain('Incorrect API key provided: [REDACTED]');
    expect(JSON.stringify(events)).not.toContain(CANARY);
    expect(events.at(-1)).toMatchObject({
      type: 'run-error',
      message: expect.stringContaining('[REDACTED]'),
    });
  });
});
