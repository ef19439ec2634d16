import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRemoteMcp } from '../../helpers/mcp-remote.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { spawnTsx } from '../durable/harness.js';

// The durable-turn SIGKILL harness of test/integration/frameworks (its child, TOOL=mcp): the
// agent's `pay` is a remote MCP server's tool, and the side effects counted are the server's.
const child = fileURLToPath(new URL('../frameworks/durable/child.ts', import.meta.url));

const server = useScriptedModelServer({ freshCallIds: true });
const remote = useRemoteMcp();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ak-mcp-sigkill-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function attempt(framework: string, name: string, killAt?: string) {
  const files = [join(dir, `${name}.journal.json`), join(dir, `${name}.effects`)];
  const args = [framework, server.url, ...files, 'run-1'];
  const env = { KILL_AT: killAt ?? '', TOOL: 'mcp', MCP_URL: remote.url };
  const { signal, stdout, stderr } = await spawnTsx(child, args, env, 40_000);
  return { signal, last: stdout ? JSON.parse(stdout) : undefined, stderr };
}

const payCall = { toolCalls: [{ name: 'pay', arguments: { to: 'bob', amount: 10 } }] };

describe.each(['openai', 'ai-sdk'])('%s agent with a remote MCP tool', (framework) => {
  it('a worker SIGKILLed right after the write the remote call outcome rode on: the redelivered attempt does not call the server again', {
    timeout: 120_000,
  }, async () => {
    // Prepare
    const name = `${framework}-mcp-after`;
    const before = remote.effects.length;
    // The outcome rides on the runner's last write, after the step that read it.
    server.push(payCall, { text: 'Paid Bob.' }, { text: 'Paid Bob.' });

    // Act
    const killed = await attempt(framework, name, 'after-tool');
    const again = await attempt(framework, name);

    // Assess
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(again.last, again.stderr).toMatchObject({
      type: 'run-finished',
      reply: { text: 'Paid Bob.' },
    });
    const calls = remote.effects.slice(before).filter((e) => e.tool === 'pay');
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args).toEqual({ to: 'bob', amount: 10 });
    // The call's idempotency key went to the server in `_meta`: run id and the model's call id.
    expect(calls[0]?.meta?.['io.agent-kernel/idempotency-key']).toMatch(
      /^run-1:call_[A-Za-z0-9]{24}$/,
    );
    // The replay served the recorded step and the remote result from the journal to the model's
    // next step: it asked only for that step.
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[2]?.body)).toContain('sent 10 to bob');
  });
});
