import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { DaemonPacketInvalid, TraceHeaderInvalid } from './errors.js';

/**
 * X-Ray segment documents, written by us and sent to the daemon over UDP (the daemon's protocol:
 * a JSON header line, then the document). See docs/architecture.md for why not the SDK's
 * context machinery.
 */
export interface TraceHeader {
  readonly traceId: string;
  /** The segment or subsegment that the receiver's spans hang under. */
  readonly parentId?: string;
  readonly sampled: boolean;
}

const TRACE_ID = /^1-[0-9a-f]{8}-[0-9a-f]{24}$/;
const SEGMENT_ID = /^[0-9a-f]{16}$/;

// Ids come from a pool: one randomBytes call per 512 ids instead of one per span.
const POOL_SIZE = 4_096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

export function randomHex(bytes: number): string {
  if (offset + bytes > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

export function newTraceId(now = Date.now()): string {
  const seconds = Math.floor(now / 1000)
    .toString(16)
    .padStart(8, '0');
  return `1-${seconds}-${randomHex(12)}`;
}

export function newSegmentId(): string {
  return randomHex(8);
}

/** `Root=…;Parent=…;Sampled=…` (any order, extra keys such as Lineage ignored). */
export function parseTraceHeader(header: string): TraceHeader {
  const fields = new Map<string, string>();
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const traceId = fields.get('Root');
  const parentId = fields.get('Parent');
  if (!traceId || !TRACE_ID.test(traceId) || (parentId && !SEGMENT_ID.test(parentId))) {
    throw new TraceHeaderInvalid(header);
  }
  return { traceId, ...(parentId ? { parentId } : {}), sampled: fields.get('Sampled') !== '0' };
}

export function formatTraceHeader(header: TraceHeader): string {
  const parent = header.parentId ? `;Parent=${header.parentId}` : '';
  return `Root=${header.traceId}${parent};Sampled=${header.sampled ? 1 : 0}`;
}

/** The fields of a segment or subsegment document that we write. */
export interface SegmentDocument {
  name: string;
  id: string;
  trace_id: string;
  start_time: number;
  end_time?: number;
  in_progress?: boolean;
  type?: 'subsegment';
  parent_id?: string;
  namespace?: 'aws' | 'remote';
  annotations?: Record<string, string | number | boolean>;
  metadata?: Record<string, Record<string, unknown>>;
  error?: boolean;
  fault?: boolean;
  throttle?: boolean;
  cause?: { exceptions: { id: string; type: string; message: string }[] };
  aws?: Record<string, unknown>;
  http?: Record<string, unknown>;
  /** Nested subsegments: they carry no trace_id, parent_id or type of their own. */
  subsegments?: SegmentDocument[];
}

/**
 * Nests `children` (finished subsegment documents naming their parent) into `root`: one packet
 * instead of one per span. A child whose parent is not among them stays out (returned apart).
 */
export function nestSubsegments(
  root: SegmentDocument,
  children: readonly SegmentDocument[],
): { document: SegmentDocument; orphans: SegmentDocument[] } {
  const byId = new Map<string, SegmentDocument>([[root.id, root]]);
  const nested = children.map((child) => {
    const { trace_id: _t, parent_id: _p, type: _s, ...rest } = child;
    byId.set(child.id, rest as SegmentDocument);
    return rest as SegmentDocument;
  });
  const orphans: SegmentDocument[] = [];
  children.forEach((child, i) => {
    const parent = child.parent_id ? byId.get(child.parent_id) : undefined;
    if (!parent) {
      orphans.push(child);
      return;
    }
    parent.subsegments ??= [];
    parent.subsegments.push(nested[i]!);
  });
  return { document: root, orphans };
}

/** The reverse: every nested subsegment as an independent document (for oversized packets). */
export function flattenSegment(document: SegmentDocument): SegmentDocument[] {
  const out: SegmentDocument[] = [];
  const walk = (doc: SegmentDocument, parent: SegmentDocument | undefined) => {
    const { subsegments, ...rest } = doc;
    out.push(
      parent
        ? { ...rest, type: 'subsegment', trace_id: document.trace_id, parent_id: parent.id }
        : rest,
    );
    for (const child of subsegments ?? []) walk(child, doc);
  };
  walk(document, undefined);
  return out;
}

/** Where finished documents go: the daemon over UDP, or a test's array. */
export interface SegmentEmitter {
  send(document: SegmentDocument): void;
  close?(): Promise<void>;
}

const HEADER = '{"format":"json","version":1}\n';
/** The daemon drops UDP packets above 64 KB: bigger documents lose their metadata. */
const MAX_PACKET = 62_000;

export class UdpSegmentEmitter implements SegmentEmitter {
  readonly #host: string;
  readonly #port: number;
  #socket: Socket | undefined;
  #connected = false;
  /** Packets written before the socket connected (the first request of a process). */
  readonly #queue: Buffer[] = [];

  constructor(address: { host: string; port: number }) {
    this.#host = address.host;
    this.#port = address.port;
  }

  send(document: SegmentDocument): void {
    let packet = Buffer.from(HEADER + JSON.stringify(document));
    if (packet.length > MAX_PACKET && document.subsegments) {
      for (const part of flattenSegment(document)) this.send(part);
      return;
    }
    if (packet.length > MAX_PACKET) {
      const { metadata: _dropped, ...rest } = document;
      const annotations = { ...rest.annotations, metadata_truncated: true };
      packet = Buffer.from(HEADER + JSON.stringify({ ...rest, annotations }));
    }
    // Tracing never fails a run: a missing daemon just loses the segment.
    const socket = this.#socketFor();
    if (this.#connected) socket.send(packet, ignore);
    else if (this.#queue.length < 100) this.#queue.push(packet);
  }

  async close(): Promise<void> {
    const socket = this.#socket;
    this.#socket = undefined;
    this.#connected = false;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  #socketFor(): Socket {
    if (!this.#socket) {
      const socket = createSocket(this.#host.includes(':') ? 'udp6' : 'udp4');
      socket.on('error', ignore);
      // A pending send must not keep a process (or a test worker) alive.
      socket.unref();
      // Connected once, so no send resolves the address or looks up the route again.
      socket.connect(this.#port, this.#host, () => {
        if (this.#socket !== socket) return;
        this.#connected = true;
        for (const packet of this.#queue.splice(0)) socket.send(packet, ignore);
      });
      this.#socket = socket;
    }
    return this.#socket;
  }
}

function ignore(): void {}

/** Parses what the daemon receives (header line + document); for tests and local tooling. */
export function parseDaemonPacket(packet: Buffer | string): SegmentDocument {
  const text = packet.toString();
  const newline = text.indexOf('\n');
  const header = JSON.parse(text.slice(0, newline)) as { format?: string; version?: number };
  if (header.format !== 'json' || header.version !== 1) {
    throw new DaemonPacketInvalid(text.slice(0, newline));
  }
  return JSON.parse(text.slice(newline + 1)) as SegmentDocument;
}
