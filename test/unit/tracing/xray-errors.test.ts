import { describe, expect, it } from 'vitest';
import { AgentNotFound, ModelError } from '../../../lib/core/errors.js';
import {
  CloudWatchTracer,
  flattenSegment,
  type SegmentDocument,
} from '../../../lib/tracing/index.js';

function tracer(env: Record<string, string> = {}) {
  const docs: SegmentDocument[] = [];
  const cw = new CloudWatchTracer({
    env,
    emitter: { send: (d) => docs.push(...flattenSegment(d)) },
    sink: () => {},
  });
  return { docs, cw };
}

function failed(error: unknown, env?: Record<string, string>) {
  const { docs, cw } = tracer(env);
  const span = cw.startSpan('run', { agent: 'a', principal: 'alice@example.com' }, { kind: 'run' });
  if (error !== undefined) span.recordError(error);
  span.end();
  return docs[0] as SegmentDocument & { throttle?: boolean };
}

describe('X-Ray error flags and exception shape', () => {
  it('marks a rate-limited model call as throttle and error, not fault', () => {
    const doc = failed(new ModelError('slow down', { status: 429 }));
    expect(doc).toMatchObject({ throttle: true, error: true });
    expect(doc.fault).toBeUndefined();
  });

  it('marks a caller error as error and a server failure as fault', () => {
    expect(failed(new AgentNotFound('nope'))).toMatchObject({ error: true });
    expect(failed(new AgentNotFound('nope')).fault).toBeUndefined();
    const broken = failed(new ModelError('upstream broke', { status: 500 }));
    expect(broken).toMatchObject({ fault: true });
    expect(broken.throttle).toBeUndefined();
  });

  it('keeps the exception to the segment schema, the code in metadata', () => {
    const doc = failed(new ModelError('upstream broke', { status: 500 }));
    const [exception] = doc.cause?.exceptions ?? [];
    expect(Object.keys(exception ?? {}).sort()).toEqual(['id', 'message', 'type']);
    expect(doc.metadata?.agent_kernel).toMatchObject({ error_code: 'model-error' });
  });

  it('hashes the principal as OTel does, omits it or keeps it per AGENT_KERNEL_TRACE_PRINCIPAL', () => {
    const hashed = failed(undefined).metadata?.agent_kernel?.principal;
    expect(hashed).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(JSON.stringify(failed(undefined))).not.toContain('alice@example.com');
    const omitted = failed(undefined, { AGENT_KERNEL_TRACE_PRINCIPAL: 'omit' });
    expect(omitted.metadata?.agent_kernel?.principal).toBeUndefined();
    const plain = failed(undefined, { AGENT_KERNEL_TRACE_PRINCIPAL: 'plain' });
    expect(plain.metadata?.agent_kernel?.principal).toBe('alice@example.com');
  });
});
