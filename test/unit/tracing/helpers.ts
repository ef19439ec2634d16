import { createSocket } from 'node:dgram';
import { expect } from 'vitest';
import * as z from 'zod';
import {
  flattenSegment,
  parseDaemonPacket,
  type SegmentDocument,
} from '../../../lib/tracing/index.js';

/** A UDP listener on 127.0.0.1 standing in for the X-Ray daemon. */
export async function startFakeDaemon() {
  const socket = createSocket('udp4');
  const documents: SegmentDocument[] = [];
  const packets: SegmentDocument[] = [];
  // Nested subsegments are listed as documents of their own, with their parent's id.
  socket.on('message', (packet) => {
    const doc = parseDaemonPacket(packet);
    packets.push(doc);
    documents.push(...flattenSegment(doc));
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    daemon: { host: '127.0.0.1', port },
    documents,
    packets,
    /** Resolves once `count` documents arrived (UDP is asynchronous even on loopback). */
    async waitFor(count: number, timeoutMs = 5_000): Promise<SegmentDocument[]> {
      const until = Date.now() + timeoutMs;
      while (documents.length < count && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return documents;
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

const UNITS = [
  'Seconds',
  'Microseconds',
  'Milliseconds',
  'Bytes',
  'Kilobytes',
  'Megabytes',
  'Gigabytes',
  'Terabytes',
  'Bits',
  'Kilobits',
  'Megabits',
  'Gigabits',
  'Terabits',
  'Percent',
  'Count',
  'Bytes/Second',
  'Kilobytes/Second',
  'Megabytes/Second',
  'Gigabytes/Second',
  'Terabytes/Second',
  'Bits/Second',
  'Kilobits/Second',
  'Megabits/Second',
  'Gigabits/Second',
  'Terabits/Second',
  'Count/Second',
  'None',
] as const;

/** The embedded metric format specification's `_aws` envelope, as a schema. */
const EmfEnvelope = z.object({
  _aws: z.object({
    Timestamp: z.number().int().positive(),
    CloudWatchMetrics: z
      .array(
        z.object({
          Namespace: z.string().min(1).max(255),
          Dimensions: z.array(z.array(z.string().min(1)).max(30)),
          Metrics: z
            .array(
              z.object({
                Name: z.string().min(1).max(255),
                Unit: z.enum(UNITS).optional(),
                StorageResolution: z.union([z.literal(1), z.literal(60)]).optional(),
              }),
            )
            .max(100),
        }),
      )
      .min(1),
  }),
});

/**
 * Checks one parsed line against the embedded metric format: the envelope, every dimension a
 * string member of the root, every metric a number (or up to 100 numbers) at the root.
 */
export function expectValidEmf(line: Record<string, unknown>): z.infer<typeof EmfEnvelope> {
  const doc = EmfEnvelope.parse(line);
  for (const directive of doc._aws.CloudWatchMetrics) {
    for (const set of directive.Dimensions) {
      for (const key of set) expect(typeof line[key], `dimension ${key}`).toBe('string');
    }
    for (const metric of directive.Metrics) {
      const value = line[metric.Name];
      const values = Array.isArray(value) ? value : [value];
      expect(values.length, metric.Name).toBeGreaterThan(0);
      expect(values.length, metric.Name).toBeLessThanOrEqual(100);
      for (const v of values) expect(Number.isFinite(v), `${metric.Name} value`).toBe(true);
    }
  }
  return doc;
}

/** Splits a sink's lines into EMF documents and log lines. */
export function splitLines(lines: readonly string[]) {
  const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    emf: parsed.filter((line) => '_aws' in line),
    // A root run's line is both: its log line carries its metrics.
    logs: parsed.filter((line) => 'message' in line),
  };
}
