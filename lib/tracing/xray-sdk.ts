// Not `createRequire`: the bundles' banner declares that name at the top level (infra/bundling.ts).
import { createRequire as requireFrom } from 'node:module';
import { activeSpan, type Span } from '../core/tracer.js';
import { parseTraceHeader } from './xray.js';

/**
 * Interop with `aws-xray-sdk-core` (and Powertools Tracer, built on it) in the user's own code:
 * while one of our spans is active (a tool call), the SDK's current segment is a stand-in
 * subsegment carrying our span's trace id and span id, so the user's subsegments are sent with
 * our span as their parent. We do not depend on the SDK: it is patched only when the user's
 * code has loaded it (its `cls-hooked` namespace is process-wide, whichever copy made it).
 */

const BRIDGE: unique symbol = Symbol.for('agent-kernel.xray-bridge') as never;
const PATCHED: unique symbol = Symbol.for('agent-kernel.xray-patched') as never;

/** The parts of the SDK's `Subsegment` we touch; its methods stay the SDK's own. */
interface SdkSubsegment {
  id: string;
  name: string;
  parent?: SdkSubsegment | undefined;
  segment?: unknown;
  notTraced?: boolean;
  facade?: boolean;
  addNewSubsegment(name: string): SdkSubsegment;
  removeSubsegment(subsegment: SdkSubsegment): void;
  [BRIDGE]?: { readonly outer: unknown };
}

type SubsegmentClass = new (name: string) => SdkSubsegment;

interface Namespace {
  get(key: string): unknown;
  [PATCHED]?: boolean;
}

/** What `bridgeXraySdk` needs of the SDK module (`import AWSXRay from 'aws-xray-sdk-core'`). */
export interface XraySdkLike {
  getNamespace(): unknown;
  readonly Subsegment?: unknown;
}

const SEGMENT = 'segment';
/** Above any streaming threshold: each user subsegment is sent when it closes, as on Lambda. */
const ALWAYS_STREAM = Number.MAX_SAFE_INTEGER;

/**
 * Makes the SDK's current segment follow our active span. Idempotent; safe to call with the
 * module a bundle holds (`bridgeXraySdk(AWSXRay)`) when automatic discovery cannot find it.
 */
export function bridgeXraySdk(sdk: XraySdkLike): void {
  const namespace = sdk.getNamespace() as Namespace | undefined;
  if (namespace) patch(namespace, sdk.Subsegment as SubsegmentClass | undefined);
}

let discovered = false;

/**
 * Called as a tool span starts: once the user's code has loaded the SDK (its namespace exists),
 * bridges it. Costs one property read until then.
 */
export function discoverXraySdk(): void {
  if (discovered) return;
  const namespace = (process as { namespaces?: Record<string, Namespace> }).namespaces?.AWSXRay;
  if (!namespace) return;
  discovered = true;
  patch(namespace, requireSubsegment());
}

function requireSubsegment(): SubsegmentClass | undefined {
  try {
    // Unbundled deployments: the copy in node_modules (already loaded by the user's import).
    const sdk = requireFrom(import.meta.url)('aws-xray-sdk-core') as XraySdkLike;
    return sdk.Subsegment as SubsegmentClass;
  } catch {
    return undefined; // Bundled: the class is taken from the segment in the namespace.
  }
}

function patch(namespace: Namespace, known: SubsegmentClass | undefined): void {
  if (namespace[PATCHED]) return;
  namespace[PATCHED] = true;
  const original = namespace.get.bind(namespace);
  const bridges = new WeakMap<Span, SdkSubsegment>();
  namespace.get = (key: string) => {
    const value = original(key);
    if (key !== SEGMENT) return value;
    try {
      return resolve(value, bridges, known);
    } catch {
      return value; // Interop never breaks the user's tracing.
    }
  };
}

/** The segment the SDK should see now. */
function resolve(
  value: unknown,
  bridges: WeakMap<Span, SdkSubsegment>,
  known: SubsegmentClass | undefined,
): unknown {
  const span = activeSpan();
  const outer = outerOf(value);
  if (!span) return outer;
  let bridge = bridges.get(span);
  if (!bridge) {
    bridge = newBridge(span, outer, known ?? subsegmentClassOf(outer));
    if (!bridge) return outer;
    bridges.set(span, bridge);
  }
  // A subsegment the user set below our stand-in (Powertools' setSegment) stays current.
  for (let s = value as SdkSubsegment | undefined; s; s = s.parent) if (s === bridge) return value;
  return bridge;
}

/** The user's own segment behind a stale stand-in (one left set after its span ended). */
function outerOf(value: unknown): unknown {
  for (let s = value as SdkSubsegment | undefined; s; s = s.parent) {
    const bridge = s[BRIDGE];
    if (bridge) return outerOf(bridge.outer);
  }
  return value;
}

/** A detached SDK subsegment with our span's ids; never closed nor sent itself. */
function newBridge(
  span: Span,
  outer: unknown,
  Subsegment: SubsegmentClass | undefined,
): SdkSubsegment | undefined {
  const header = span.traceHeader();
  if (!header || !Subsegment) return undefined;
  const { traceId, parentId, sampled } = parseTraceHeader(header);
  if (!parentId) return undefined;
  const bridge = new Subsegment('agent-kernel');
  bridge.id = parentId;
  bridge.notTraced = !sampled;
  bridge.segment = {
    trace_id: traceId,
    id: parentId,
    notTraced: !sampled,
    counter: ALWAYS_STREAM,
    incrementCounter() {},
    decrementCounter() {},
    isClosed: () => false,
  };
  bridge[BRIDGE] = { outer };
  return bridge;
}

/** A bundled SDK's Subsegment class, from the segment its namespace holds. */
function subsegmentClassOf(outer: unknown): SubsegmentClass | undefined {
  const segment = outer as SdkSubsegment | undefined;
  if (!segment || typeof segment.addNewSubsegment !== 'function') return undefined;
  if (segment.parent) return segment.constructor as SubsegmentClass;
  // Only Lambda's facade segment takes a probe without side effects (its counters are no-ops).
  if (!segment.facade) return undefined;
  const probe = segment.addNewSubsegment('agent-kernel');
  segment.removeSubsegment(probe);
  return probe.constructor as SubsegmentClass;
}
