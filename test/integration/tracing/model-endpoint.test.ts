import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { createTracer, flushTracer, type MultiTracer } from '../../../lib/tracing/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { startFakeDaemon } from '../../unit/tracing/helpers.js';
import { nativeRunners } from './native-runners.js';
import { startOtlpReceiver } from './otlp-receiver.js';

/**
 * A model call's remote node is named after the model's host: the X-Ray subsegment takes the
 * host as its name with an `http` block (the request URL), and the OTel `chat` span carries
 * `server.address`, `server.port` and `url.full`, for the runners whose model reports its URL.
 */

const server = useScriptedModelServer();
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let daemon: Awaited<ReturnType<typeof startFakeDaemon>>;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
  daemon = await startFakeDaemon();
});
afterEach(async () => {
  await receiver.close();
  await daemon.close();
});

const runners = nativeRunners.filter((r) => r.name === 'ai-sdk' || r.name === 'mastra');

describe.each(runners)('the model endpoint of the $name runner', ({ agent }) => {
  it('names the X-Ray node after the host and sets server.address in OTel', async () => {
    // Arrange
    const tracer = createTracer({
      env: {
        AGENT_KERNEL_TRACING: 'cloudwatch,otlp',
        AWS_XRAY_DAEMON_ADDRESS: daemon.address,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      },
      sink: () => {},
    });
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      agents: [await agent(server.url, async () => 'unused')],
      tracer,
    });
    server.push({ text: 'Hello.' });
    const { hostname, port } = new URL(server.url);

    // Act
    await runtime.run('assistant', 's-endpoint', 'Hi');
    await flushTracer(tracer);
    const docs = await daemon.waitFor(2);
    await (tracer as MultiTracer).close();

    // Assess
    const model = docs.find((d) => d.annotations?.kind === 'model');
    expect(model).toMatchObject({ name: hostname, namespace: 'remote' });
    const request = (model?.http as { request?: { url?: string; method?: string } } | undefined)
      ?.request;
    expect(request?.method).toBe('POST');
    expect(request?.url?.startsWith(server.url)).toBe(true);
    const chat = receiver.spans().find((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(chat?.attributes).toMatchObject({
      'server.address': hostname,
      'server.port': Number(port),
    });
    expect(String(chat?.attributes['url.full']).startsWith(server.url)).toBe(true);
  });
});
