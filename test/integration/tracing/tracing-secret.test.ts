import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { observability } from '../../../lib/aws/middleware/observability.js';
import { inSpan } from '../../../lib/core/tracer.js';
import { tracersReady } from '../../../lib/tracing/lazy.js';
import { flushBufferedTracers } from '../../../lib/tracing/multi.js';
import { startOtlpReceiver } from './otlp-receiver.js';

// A function deployed with `-c tracing=langfuse -c tracingSecretName=…`: its environment holds
// only the secret's name; the Langfuse keys come from a Secrets Manager endpoint on 127.0.0.1 at
// cold start, reach Langfuse's OTLP endpoint as Basic auth and appear nowhere else.
const PUBLIC_KEY = 'pk-lf-PLANTED-public';
const SECRET_KEY = 'sk-lf-PLANTED-9b1c44e0';
let secrets: Server;
let secretsUrl: string;
let secretBody = JSON.stringify({
  LANGFUSE_PUBLIC_KEY: PUBLIC_KEY,
  LANGFUSE_SECRET_KEY: SECRET_KEY,
});
const reads: string[] = [];
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  secrets = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      const { SecretId } = JSON.parse(text || '{}') as { SecretId?: string };
      reads.push(String(SecretId));
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (SecretId !== 'agent-kernel/tracing') {
        res.statusCode = 400;
        res.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: 'not found' }));
        return;
      }
      res.end(JSON.stringify({ Name: SecretId, SecretString: secretBody, VersionId: 'v1' }));
    });
  });
  await new Promise<void>((resolve) => secrets.listen(0, '127.0.0.1', resolve));
  secretsUrl = `http://127.0.0.1:${(secrets.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await receiver?.close();
  await new Promise<void>((resolve) => secrets.close(() => resolve()));
});

function deployed(secretName = 'agent-kernel/tracing'): Record<string, string | undefined> {
  return {
    AWS_LAMBDA_FUNCTION_NAME: 'worker',
    AWS_REGION: 'eu-west-1',
    AGENT_KERNEL_TRACING: 'langfuse',
    AGENT_KERNEL_TRACING_SECRET_NAME: secretName,
    LANGFUSE_BASE_URL: `${receiver.url}/langfuse`,
    SECRETS_MANAGER_ENDPOINT: secretsUrl,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  };
}

describe('preset credentials from Secrets Manager (AGENT_KERNEL_TRACING_SECRET_NAME)', () => {
  it('reads them at cold start and sends Langfuse its Basic auth, redacted everywhere else', async () => {
    // Prepare
    const env = deployed();
    const o = observability('worker', env);

    // Act
    await tracersReady();
    await inSpan(o.tracer, 'job', { note: `key ${SECRET_KEY}` }, {}, async () => {});
    await flushBufferedTracers(2_000);

    // Assess
    expect(reads).toEqual(['agent-kernel/tracing']);
    const request = receiver.requests.find((r) => r.path === '/langfuse/api/public/otel/v1/traces');
    const basic = Buffer.from(`${PUBLIC_KEY}:${SECRET_KEY}`).toString('base64');
    expect(request?.headers.authorization).toBe(`Basic ${basic}`);
    expect(request?.body).toContain('"job"');
    expect(request?.body).not.toContain(SECRET_KEY);
    expect(env.LANGFUSE_SECRET_KEY).toBe(SECRET_KEY);
  });

  it('logs a secret it cannot read, names no value, and records no span', async () => {
    // Prepare: a secret holding a variable no preset reads.
    secretBody = JSON.stringify({ LANGFUSE_SECRET_KEY: SECRET_KEY, AWS_SECRET_ACCESS_KEY: 'x' });
    const before = receiver.requests.length;

    // Act
    const o = observability('worker', deployed());
    const logged = vi.spyOn(o.logger, 'error');
    await tracersReady();
    await inSpan(o.tracer, 'job', {}, {}, async () => {});
    await flushBufferedTracers(2_000);

    // Assess
    expect(logged).toHaveBeenCalledTimes(1);
    const [message, fields] = logged.mock.calls[0] ?? [];
    const text = `${String(message)} ${String((fields as { error?: unknown } | undefined)?.error)}`;
    expect(text).toContain('tracing backend unavailable');
    expect(text).toContain('AGENT_KERNEL_TRACING_SECRET_NAME');
    expect(text).toContain('"AWS_SECRET_ACCESS_KEY"');
    expect(text).not.toContain(SECRET_KEY);
    expect(receiver.requests.length).toBe(before);
  });
});
