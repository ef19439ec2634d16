import { describe, expect, it } from 'vitest';
import {
  DaemonPacketInvalid,
  flattenSegment,
  formatTraceHeader,
  nestSubsegments,
  newSegmentId,
  newTraceId,
  parseDaemonPacket,
  parseTraceHeader,
  TraceHeaderInvalid,
  UdpSegmentEmitter,
} from '../../../lib/tracing/index.js';
import { startFakeDaemon } from './helpers.js';

describe('X-Ray ids and trace headers', () => {
  it('makes trace ids with the epoch time and 64-bit segment ids', () => {
    // Act
    const traceId = newTraceId(Date.UTC(2026, 0, 1));
    const segmentId = newSegmentId();

    // Assess
    expect(traceId).toMatch(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/);
    expect(Number.parseInt(traceId.slice(2, 10), 16)).toBe(Date.UTC(2026, 0, 1) / 1000);
    expect(segmentId).toMatch(/^[0-9a-f]{16}$/);
    expect(newSegmentId()).not.toBe(segmentId);
  });

  it('parses and formats headers, in any order, ignoring extra keys', () => {
    // Prepare
    const raw =
      'Parent=53995c3f42cd8ad8;Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1;Lineage=a:1';

    // Act
    const header = parseTraceHeader(raw);

    // Assess
    expect(header).toEqual({
      traceId: '1-5759e988-bd862e3fe1be46a994272793',
      parentId: '53995c3f42cd8ad8',
      sampled: true,
    });
    expect(formatTraceHeader(header)).toBe(
      'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
    );
    expect(parseTraceHeader('Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=0')).toEqual({
      traceId: '1-5759e988-bd862e3fe1be46a994272793',
      sampled: false,
    });
  });

  it.each(['', 'Root=abc', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=xyz'])(
    'refuses %j',
    (raw) => {
      // Act
      const parse = () => parseTraceHeader(raw);

      // Assess
      expect(parse).toThrow(TraceHeaderInvalid);
    },
  );
});

describe('nesting subsegments', () => {
  it('nests children under their parents and keeps a child of an unknown parent apart', () => {
    // Prepare
    const traceId = newTraceId();
    const root = { name: 'run', id: 'a'.repeat(16), trace_id: traceId, start_time: 1 };
    const sub = (name: string, id: string, parent: string) => ({
      name,
      id: id.repeat(16),
      parent_id: parent.repeat(16),
      trace_id: traceId,
      type: 'subsegment' as const,
      start_time: 1,
    });

    // Act
    const { document, orphans } = nestSubsegments(root, [
      sub('handler-call', 'c', 'b'),
      sub('tool', 'b', 'a'),
      sub('stray', 'd', 'e'),
    ]);

    // Assess
    expect(document.subsegments).toEqual([
      {
        name: 'tool',
        id: 'b'.repeat(16),
        start_time: 1,
        subsegments: [{ name: 'handler-call', id: 'c'.repeat(16), start_time: 1 }],
      },
    ]);
    expect(orphans.map((o) => o.name)).toEqual(['stray']);
    expect(flattenSegment(document).map((d) => [d.name, d.parent_id])).toEqual([
      ['run', undefined],
      ['tool', 'a'.repeat(16)],
      ['handler-call', 'b'.repeat(16)],
    ]);
  });
});

describe('UdpSegmentEmitter', () => {
  it('sends the daemon header line and the document; drops metadata past the packet limit', async () => {
    // Prepare
    const daemon = await startFakeDaemon();
    const emitter = new UdpSegmentEmitter(daemon.daemon);
    const base = { id: newSegmentId(), trace_id: newTraceId(), start_time: 1, end_time: 2 };

    // Act
    emitter.send({ ...base, name: 'small', metadata: { agent_kernel: { note: 'kept' } } });
    emitter.send({
      ...base,
      name: 'big',
      metadata: { agent_kernel: { blob: 'x'.repeat(70_000) } },
    });
    const docs = await daemon.waitFor(2);
    await emitter.close();
    await daemon.close();

    // Assess
    const small = docs.find((d) => d.name === 'small');
    const big = docs.find((d) => d.name === 'big');
    expect(small?.metadata).toEqual({ agent_kernel: { note: 'kept' } });
    expect(big?.metadata).toBeUndefined();
    expect(big?.annotations).toEqual({ metadata_truncated: true });
  });

  it('splits a nested document that is too big into one packet per subsegment', async () => {
    // Prepare
    const daemon = await startFakeDaemon();
    const emitter = new UdpSegmentEmitter(daemon.daemon);
    const traceId = newTraceId();
    const root = { name: 'root', id: newSegmentId(), trace_id: traceId, start_time: 1 };
    const children = [1, 2].map((n) => ({
      name: `child-${n}`,
      id: newSegmentId(),
      trace_id: traceId,
      parent_id: root.id,
      type: 'subsegment' as const,
      start_time: 1,
      metadata: { agent_kernel: { blob: 'y'.repeat(40_000) } },
    }));
    const { document } = nestSubsegments(root, children);

    // Act
    emitter.send(document);
    await daemon.waitFor(3);
    await emitter.close();
    await daemon.close();

    // Assess
    expect(daemon.packets).toHaveLength(3);
    expect(daemon.packets.find((p) => p.name === 'child-2')).toMatchObject({
      type: 'subsegment',
      parent_id: root.id,
      trace_id: traceId,
    });
  });

  it('refuses a packet without the daemon header', () => {
    // Act
    const parse = () => parseDaemonPacket('{"format":"xml"}\n{}');

    // Assess
    expect(parse).toThrow(DaemonPacketInvalid);
  });

  it('loses segments quietly when no daemon listens', async () => {
    // Prepare
    const emitter = new UdpSegmentEmitter({ host: '127.0.0.1', port: 9 });

    // Act
    const send = () =>
      emitter.send({ name: 'lost', id: newSegmentId(), trace_id: newTraceId(), start_time: 1 });

    // Assess
    expect(send).not.toThrow();
    await emitter.close();
  });
});
