import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import { deploymentFor } from '../../../lib/aws/wiring/deployment.js';
import { ConfigError, ModelSecretError } from '../../../lib/aws/wiring/errors.js';
import { loadModelSecret } from '../../../lib/aws/wiring/model-secret.js';
import { Agent } from '../../../lib/core/agent.js';
import type { Runner } from '../../../lib/core/runner.js';
import { CloudWatchTracer } from '../../../lib/tracing/index.js';

/**
 * A small Secrets Manager + SSM endpoint on 127.0.0.1 speaking their JSON 1.1 protocol, so the
 * real SDK clients (through SECRETS_MANAGER_ENDPOINT / SSM_ENDPOINT) read from it.
 */
interface Recorded {
  target: string;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

const secrets = new Map<string, string>();
const parameters = new Map<string, string>();
const requests: Recorded[] = [];
let server: Server;
let endpoint: string;

function reply(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
  res.end(JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const body = JSON.parse(text || '{}') as Record<string, unknown>;
      requests.push({ target, body, headers: req.headers });
      if (
        req.method !== 'POST' ||
        !String(req.headers['content-type']).startsWith('application/x-amz-json-1.1')
      ) {
        reply(res, 400, { __type: 'SerializationException', message: 'Bad request' });
      } else if (target === 'secretsmanager.GetSecretValue') {
        const id = String(body.SecretId);
        const value = secrets.get(id);
        if (value === undefined) {
          reply(res, 400, {
            __type: 'ResourceNotFoundException',
            message: "Secrets Manager can't find the specified secret.",
          });
        } else {
          reply(res, 200, {
            ARN: `arn:aws:secretsmanager:us-east-1:123456789012:secret:${id}-AbCdEf`,
            Name: id,
            SecretString: value,
            VersionId: 'v1',
            VersionStages: ['AWSCURRENT'],
            CreatedDate: 1_700_000_000,
          });
        }
      } else if (target === 'AmazonSSM.GetParameter') {
        const name = String(body.Name);
        const value = parameters.get(name);
        if (value === undefined) {
          reply(res, 400, { __type: 'ParameterNotFound', message: `Parameter ${name} not found.` });
        } else {
          reply(res, 200, {
            Parameter: {
              Name: name,
              Type: 'SecureString',
              Value: body.WithDecryption === true ? value : 'AQICAHencrypted',
              Version: 1,
              ARN: `arn:aws:ssm:us-east-1:123456789012:parameter${name}`,
              DataType: 'text',
            },
          });
        }
      } else {
        reply(res, 400, { __type: 'UnknownOperationException', message: `No ${target}` });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  secrets.clear();
  parameters.clear();
  requests.length = 0;
});

/** The environment of a function: the endpoint overrides point the clients at the server. */
function functionEnv(extra: Record<string, string>): Record<string, string | undefined> {
  return {
    AWS_REGION: 'us-east-1',
    SECRETS_MANAGER_ENDPOINT: endpoint,
    SSM_ENDPOINT: endpoint,
    TABLE_NAME: 'agent-kernel',
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    ...extra,
  };
}

const runner: Runner = {
  name: 'noop',
  supportsStreaming: false,
  supportsPause: false,
  reservedRunOptions: {},
  stream: async function* () {
    yield* [];
    return { status: 'completed', text: '', state: null, context: {} };
  },
};

/** An agents entry that, like examples/demo, reads its key when it builds its agents. */
function entryReading(env: Record<string, string | undefined>, names: string[]) {
  const seen: Record<string, string | undefined>[] = [];
  const entry = {
    createAgents: () => {
      seen.push(Object.fromEntries(names.map((name) => [name, env[name]])));
      return { agents: [new Agent({ name: 'a', runner, native: null })] };
    },
  };
  return { entry, seen };
}

describe('the model secret at cold start (real SDK clients, local endpoint)', () => {
  it('puts a plain Secrets Manager value in OPENAI_API_KEY before the agents are built', async () => {
    // Arrange
    secrets.set('agent-kernel/openai', '  planted-openai-key-7f3a9c\n');
    const env = functionEnv({ MODEL_SECRET_NAME: 'agent-kernel/openai' });
    const { entry, seen } = entryReading(env, ['OPENAI_API_KEY']);

    // Act
    const deployment = deploymentFor(entry, ['TABLE_NAME'], env);
    await deployment();
    await deployment();

    // Assess: read once (one cold start), trimmed, seen by createAgents, request signed.
    expect(env.OPENAI_API_KEY).toBe('planted-openai-key-7f3a9c');
    expect(seen).toEqual([{ OPENAI_API_KEY: 'planted-openai-key-7f3a9c' }]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      target: 'secretsmanager.GetSecretValue',
      body: { SecretId: 'agent-kernel/openai' },
    });
    expect(requests[0]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
  });

  it('maps a JSON object to several variables, and MODEL_API_KEY_ENV names a plain one', async () => {
    // Arrange
    secrets.set(
      'agent-kernel/keys',
      JSON.stringify({ OPENAI_API_KEY: 'planted-openai-1', ANTHROPIC_API_KEY: 'planted-claude-2' }),
    );
    secrets.set('agent-kernel/mistral', 'planted-mistral-3');
    const env = functionEnv({ MODEL_SECRET_NAME: 'agent-kernel/keys' });
    const plainEnv = functionEnv({
      MODEL_SECRET_NAME: 'agent-kernel/mistral',
      MODEL_API_KEY_ENV: 'MISTRAL_API_KEY',
    });

    // Act
    const loaded = await loadModelSecret(loadConfig(env), env);
    await loadModelSecret(loadConfig(plainEnv), plainEnv);

    // Assess: names only in what is returned.
    expect(env).toMatchObject({
      OPENAI_API_KEY: 'planted-openai-1',
      ANTHROPIC_API_KEY: 'planted-claude-2',
    });
    expect(loaded).toEqual({
      source: { kind: 'secrets-manager', name: 'agent-kernel/keys' },
      variables: ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY'],
    });
    expect(plainEnv.MISTRAL_API_KEY).toBe('planted-mistral-3');
    expect(plainEnv.OPENAI_API_KEY).toBeUndefined();
  });

  it('reads an SSM SecureString parameter with decryption', async () => {
    // Arrange
    parameters.set('/agent-kernel/openai-key', 'planted-ssm-key-51e0');
    const env = functionEnv({ MODEL_SECRET_PARAMETER: '/agent-kernel/openai-key' });
    const { entry, seen } = entryReading(env, ['OPENAI_API_KEY']);

    // Act
    await deploymentFor(entry, ['TABLE_NAME'], env)();

    // Assess
    expect(seen).toEqual([{ OPENAI_API_KEY: 'planted-ssm-key-51e0' }]);
    expect(requests.map((r) => [r.target, r.body])).toEqual([
      ['AmazonSSM.GetParameter', { Name: '/agent-kernel/openai-key', WithDecryption: true }],
    ]);
  });

  it('fails the cold start on a missing secret, naming it, and tries again next invocation', async () => {
    // Arrange
    const env = functionEnv({ MODEL_SECRET_NAME: 'agent-kernel/later' });
    const { entry, seen } = entryReading(env, ['OPENAI_API_KEY']);
    const deployment = deploymentFor(entry, ['TABLE_NAME'], env);

    // Act
    const first = await deployment().then(
      () => undefined,
      (err: unknown) => err,
    );
    secrets.set('agent-kernel/later', 'planted-late-key-0042');
    await deployment();

    // Assess: a coded error naming the secret and AWS's reason; no agents built before the key.
    expect(first).toBeInstanceOf(ModelSecretError);
    expect(first).toMatchObject({ code: 'model-secret-unavailable' });
    expect((first as Error).message).toBe(
      'Could not read the model key from the Secrets Manager secret "agent-kernel/later": ' +
        "ResourceNotFoundException: Secrets Manager can't find the specified secret.",
    );
    expect(seen).toEqual([{ OPENAI_API_KEY: 'planted-late-key-0042' }]);
    expect(requests).toHaveLength(2);
  });

  it('names a missing SSM parameter the same way', async () => {
    const env = functionEnv({ MODEL_SECRET_PARAMETER: '/agent-kernel/none' });
    await expect(loadModelSecret(loadConfig(env), env)).rejects.toThrow(
      'Could not read the model key from the SSM parameter "/agent-kernel/none": ' +
        'ParameterNotFound: Parameter /agent-kernel/none not found.',
    );
  });

  it('refuses both a secret and a parameter at cold start, naming both variables', () => {
    // Act
    const attempt = () =>
      deploymentFor(
        {},
        ['TABLE_NAME'],
        functionEnv({ MODEL_SECRET_NAME: 's', MODEL_SECRET_PARAMETER: '/p' }),
      );

    // Assess
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/MODEL_SECRET_NAME is set; MODEL_SECRET_PARAMETER is set too/);
    try {
      attempt();
    } catch (err) {
      expect((err as ConfigError).variables).toEqual([
        'MODEL_SECRET_NAME',
        'MODEL_SECRET_PARAMETER',
      ]);
    }
    expect(requests).toHaveLength(0);
  });

  it('refuses reserved and invalid names in a JSON secret and sets nothing', async () => {
    // Arrange
    secrets.set(
      'agent-kernel/bad',
      JSON.stringify({
        OPENAI_API_KEY: 'planted-ok-value-1',
        AWS_SECRET_ACCESS_KEY: 'planted-aws-value-2',
        'lower-case_token': 'planted-bad-value-3',
        MODEL_ENDPOINT: 'https://example.com',
      }),
    );
    const env = functionEnv({ MODEL_SECRET_NAME: 'agent-kernel/bad' });

    // Act
    const error = await loadModelSecret(loadConfig(env), env).catch((err: unknown) => err);

    // Assess: every bad name with its reason, no value, nothing set.
    expect(error).toMatchObject({ code: 'model-secret-invalid' });
    const message = (error as Error).message;
    expect(message).toContain('Secrets Manager secret "agent-kernel/bad"');
    expect(message).toContain('"AWS_SECRET_ACCESS_KEY" is reserved');
    expect(message).toContain('"lower-case_token" is not a variable name');
    expect(message).toContain('"MODEL_ENDPOINT" is not a secret-shaped name');
    expect(message).not.toMatch(/planted|example\.com/);
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
  });

  it('never shows the secret in an error, even when it is broken JSON', async () => {
    secrets.set('agent-kernel/broken', '{"OPENAI_API_KEY": "planted-broken-9d1c"');
    const env = functionEnv({ MODEL_SECRET_NAME: 'agent-kernel/broken' });

    const error = await loadModelSecret(loadConfig(env), env).catch((err: unknown) => err);

    expect((error as Error).message).toBe(
      'The Secrets Manager secret "agent-kernel/broken" starts with "{" but is not valid JSON.',
    );
    expect(JSON.stringify(error)).not.toContain('planted');
  });

  it('keeps the fetched values out of every log line of the tracer built after it', async () => {
    // Arrange: values no secret-shaped pattern would catch, so only the env names hide them.
    const openai = 'planted-openai-a81f44';
    const other = 'planted-other-0c7d19';
    secrets.set(
      'agent-kernel/keys',
      JSON.stringify({ OPENAI_API_KEY: openai, GROQ_API_KEY: other }),
    );
    const env = functionEnv({ MODEL_SECRET_NAME: 'agent-kernel/keys' });
    await loadModelSecret(loadConfig(env), env);
    const lines: string[] = [];

    // Act: the default redactor of a CloudWatch tracer, from the same environment.
    const tracer = new CloudWatchTracer({
      env: { ...env, AGENT_KERNEL_LOG_LEVEL: 'debug' },
      config: { xray: false },
      sink: (line) => lines.push(line),
    });
    tracer.logger.info(`model answered with key ${openai}`, {
      echo: `${other}!`,
      nested: [openai],
    });
    const span = tracer.startSpan('run', { agent: 'a' });
    span.recordError(new Error(`401 for ${openai}`));
    span.end();

    // Assess
    const output = lines.join('\n');
    expect(output).toContain('model answered with key [REDACTED]');
    expect(output).toContain('401 for [REDACTED]');
    expect(output).not.toContain(openai);
    expect(output).not.toContain(other);
  });
});
