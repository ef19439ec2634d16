import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activeSpan } from '../../../lib/core/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { startFakeDaemon } from '../../unit/tracing/helpers.js';
import { tracedRuntime } from './setup.js';

// One secret per channel it could leak through.
const API_KEY = 'sk-PLANTEDapikey00000000000';
const HEADER_SECRET = 'hdr-PLANTED-7c1e9a22';
const TOOL_SECRET = 'pin-PLANTED-4417';
const MODEL_SECRET = 'sk-PLANTEDmodelSecret123456';
const SECRETS = [API_KEY, HEADER_SECRET, TOOL_SECRET, MODEL_SECRET];

const server = useScriptedModelServer();
let daemon: Awaited<ReturnType<typeof startFakeDaemon>>;

beforeEach(async () => {
  daemon = await startFakeDaemon();
});
afterEach(async () => {
  await daemon.close();
});

describe('secrets never reach a trace, a metric or a log line', () => {
  it('redacts a sensitive tool argument, headers and a secret in the model response', async () => {
    // Prepare: payloads on and debug logs, so every channel carries as much as it can.
    const { runtime, lines, tracer } = tracedRuntime(server, {
      apiKey: API_KEY,
      env: {
        AWS_XRAY_DAEMON_ADDRESS: daemon.address,
        AGENT_KERNEL_TRACE_PAYLOADS: 'true',
        AGENT_KERNEL_LOG_LEVEL: 'debug',
        OPENAI_API_KEY: API_KEY,
      },
      preHooks: (t) => [
        {
          name: 'log-request',
          onRun: () => {
            const headers = {
              authorization: `Bearer ${HEADER_SECRET}`,
              'x-api-key': HEADER_SECRET,
            };
            t.logger.info('inbound request', { headers, path: '/runs' });
            activeSpan()?.setAttributes({ authorization: HEADER_SECRET, note: `key=${API_KEY}` });
          },
        },
      ],
      onToolCall: (t, args) => t.logger.info('tool called', { args }),
    });
    server.push(
      {
        toolCalls: [
          { id: 'call_s1', name: 'get_weather', arguments: { city: 'Paris', pin: TOOL_SECRET } },
        ],
      },
      { text: `Done: pin ${TOOL_SECRET} stored, token ${MODEL_SECRET}.` },
    );

    // Act
    const reply = await runtime.run('assistant', 's-secret', 'Weather in Paris?');
    const docs = await daemon.waitFor(5);
    await tracer.close();

    // Assess: the secrets really went through the run…
    expect(reply).toMatchObject({ status: 'completed' });
    expect(reply.status === 'completed' && reply.text).toContain(TOOL_SECRET);
    expect(JSON.stringify(server.requests[0]?.body)).toContain('Paris');
    // …every channel recorded content (so the check below is not vacuous)…
    const traces = JSON.stringify(docs);
    const output = lines.join('\n');
    expect(docs.map((d) => d.annotations?.kind).sort()).toEqual(
      ['hook', 'model', 'model', 'run', 'tool'].sort(),
    );
    expect(traces).toContain('Paris');
    expect(traces).toContain('[REDACTED]');
    expect(output).toContain('inbound request');
    expect(output).toContain('tool called');
    expect(output).toContain('"_aws"');
    // …and none of them holds a secret.
    for (const secret of SECRETS) {
      expect(traces, secret).not.toContain(secret);
      expect(output, secret).not.toContain(secret);
    }
  });

  it('redacts a secret in a tool error message', async () => {
    // Prepare
    const { runtime, lines, tracer } = tracedRuntime(server, {
      env: { AWS_XRAY_DAEMON_ADDRESS: daemon.address, AGENT_KERNEL_TRACE_PAYLOADS: 'true' },
      onToolCall: () => {
        throw new Error(`backend refused Authorization: Bearer ${HEADER_SECRET}`);
      },
    });
    server.push(
      { toolCalls: [{ id: 'call_e1', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'The tool failed.' },
    );

    // Act
    await runtime.run('assistant', 's-secret-error', 'Weather in Oslo?');
    const docs = await daemon.waitFor(4);
    await tracer.close();

    // Assess
    const tool = docs.find((d) => d.annotations?.kind === 'tool');
    expect(tool).toMatchObject({ fault: true, annotations: { outcome: 'error' } });
    expect(JSON.stringify(tool?.cause)).toContain('backend refused');
    expect(JSON.stringify(docs)).not.toContain(HEADER_SECRET);
    expect(lines.join('\n')).toContain('tool failed');
    expect(lines.join('\n')).not.toContain(HEADER_SECRET);
  });
});
