import { describe, expect, it } from 'vitest';
import { noopTracer } from '../../../lib/core/index.js';
import {
  CloudWatchTracer,
  createTracer,
  TracingConfigInvalid,
  tracingConfig,
  tracingConfigFromEnv,
} from '../../../lib/tracing/index.js';

describe('tracing configuration from the environment', () => {
  it('defaults to cloudwatch on Lambda and to none elsewhere', () => {
    // Prepare
    const lambda = { AWS_LAMBDA_FUNCTION_NAME: 'worker' };

    // Act
    const onLambda = tracingConfigFromEnv(lambda);
    const local = tracingConfigFromEnv({});

    // Assess
    expect(onLambda).toMatchObject({
      backend: 'cloudwatch',
      serviceName: 'worker',
      namespace: 'AgentKernel',
      daemon: { host: '127.0.0.1', port: 2000 },
      xray: true,
      capturePayloads: false,
      logLevel: 'info',
      sampleRate: 1,
    });
    expect(local.backend).toBe('none');
    expect(createTracer({ env: lambda, sink: () => {} })).toBeInstanceOf(CloudWatchTracer);
    expect(createTracer({ env: {} })).toBe(noopTracer);
  });

  it('reads every setting and lets a local run ask for cloudwatch', () => {
    // Prepare
    const env = {
      AGENT_KERNEL_TRACING: 'cloudwatch',
      AGENT_KERNEL_SERVICE_NAME: 'local-stack',
      AGENT_KERNEL_METRICS_NAMESPACE: 'Team/Agents',
      AWS_XRAY_DAEMON_ADDRESS: 'udp:10.0.0.5:3000 tcp:10.0.0.5:2000',
      AGENT_KERNEL_XRAY: 'false',
      AGENT_KERNEL_TRACE_PAYLOADS: '1',
      AWS_LAMBDA_LOG_LEVEL: 'TRACE',
      AGENT_KERNEL_TRACE_SAMPLE_RATE: '0.25',
    };

    // Act
    const config = tracingConfigFromEnv(env);

    // Assess
    expect(config).toEqual({
      backend: 'cloudwatch',
      serviceName: 'local-stack',
      namespace: 'Team/Agents',
      daemon: { host: '10.0.0.5', port: 3000 },
      xray: false,
      capturePayloads: true,
      logLevel: 'debug',
      sampleRate: 0.25,
      otel: [],
      principal: 'hash',
    });
    expect(createTracer({ env, sink: () => {} })).toBeInstanceOf(CloudWatchTracer);
  });

  it('accepts host:port for the daemon and treats empty variables as unset', () => {
    // Act
    const config = tracingConfigFromEnv({
      AWS_XRAY_DAEMON_ADDRESS: 'localhost:2999',
      AGENT_KERNEL_TRACING: '',
    });

    // Assess
    expect(config.daemon).toEqual({ host: 'localhost', port: 2999 });
    expect(config.backend).toBe('none');
  });

  it.each([
    [{ AGENT_KERNEL_TRACING: 'datadog' }, 'AGENT_KERNEL_TRACING'],
    [{ AWS_XRAY_DAEMON_ADDRESS: 'nowhere' }, 'AWS_XRAY_DAEMON_ADDRESS'],
    [{ AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:70000' }, 'AWS_XRAY_DAEMON_ADDRESS'],
    [{ AGENT_KERNEL_TRACE_PAYLOADS: 'yes' }, 'AGENT_KERNEL_TRACE_PAYLOADS'],
    [{ AGENT_KERNEL_LOG_LEVEL: 'loud' }, 'logLevel'],
    [{ AGENT_KERNEL_TRACE_SAMPLE_RATE: '2' }, 'sampleRate'],
  ])('refuses %o with an error naming %s', (env, name) => {
    // Act
    const read = () => tracingConfigFromEnv(env);

    // Assess
    expect(read).toThrow(TracingConfigInvalid);
    expect(read).toThrow(name);
  });

  it('validates a configuration built in code', () => {
    // Prepare
    const base = tracingConfigFromEnv({});

    // Act
    const bad = () => tracingConfig({ ...base, namespace: '' });

    // Assess
    expect(bad).toThrow(expect.objectContaining({ code: 'tracing-config-invalid' }));
  });
});
