/**
 * One recorded model step served through the other entry point: a step recorded from `doStream`
 * answered to `doGenerate` and the reverse, so a turn streamed, crashed and re-driven through a
 * drained run (or the reverse) replays instead of asking the model (and running a tool) again.
 * Typed structurally, like v3-journal.ts: the shapes are those of the v2, v3 and v4 specs.
 */

type Part = { readonly type: string; readonly [key: string]: unknown };
type Typed = { readonly type: string };

/** Content parts that are stream parts of the same shape (everything but text and reasoning). */
const SAME_SHAPE = new Set([
  'tool-call',
  'tool-result',
  'tool-approval-request',
  'file',
  'reasoning-file',
  'source',
  'custom',
]);

/** A generate result built from recorded stream parts: content in the order the parts came. */
export function generateOfStream(recorded: readonly Typed[]): Record<string, unknown> {
  const parts = recorded as readonly Part[];
  const content: Record<string, unknown>[] = [];
  const open = new Map<string, Record<string, unknown>>();
  const result: Record<string, unknown> = { content, warnings: [] };
  for (const part of parts) {
    const kind = part.type.replace(/-(start|delta|end)$/, '');
    if (kind === 'text' || kind === 'reasoning') {
      const id = `${kind}:${String(part.id)}`;
      let item = open.get(id);
      if (!item) {
        item = { type: kind, text: '' };
        open.set(id, item);
        content.push(item);
      }
      if (part.type.endsWith('-delta')) item.text = String(item.text) + String(part.delta ?? '');
      if (part.providerMetadata) item.providerMetadata = part.providerMetadata;
      if (part.type.endsWith('-end')) open.delete(id);
    } else if (SAME_SHAPE.has(part.type)) content.push({ ...part });
    else if (part.type === 'stream-start') result.warnings = part.warnings ?? [];
    else if (part.type === 'response-metadata') {
      const { type: _type, ...metadata } = part;
      result.response = metadata;
    } else if (part.type === 'finish') {
      result.finishReason = part.finishReason;
      result.usage = part.usage;
      if (part.providerMetadata) result.providerMetadata = part.providerMetadata;
    }
    // tool-input-* (the tool call carries its input), raw, ping: nothing to keep.
  }
  return result;
}

/** Stream parts built from a recorded generate result, in the order a provider streams them. */
export function streamOfGenerate(recorded: { readonly content: readonly Typed[] }): Part[] {
  const result = recorded as { readonly content: readonly Part[]; readonly [key: string]: unknown };
  const parts: Part[] = [{ type: 'stream-start', warnings: result.warnings ?? [] }];
  const response = result.response as Record<string, unknown> | undefined;
  if (response) {
    const { headers: _headers, body: _body, ...metadata } = response;
    parts.push({ type: 'response-metadata', ...metadata });
  }
  result.content.forEach((item, index) => {
    if (item.type === 'text' || item.type === 'reasoning') {
      const id = String(index);
      const meta = item.providerMetadata ? { providerMetadata: item.providerMetadata } : {};
      parts.push({ type: `${item.type}-start`, id, ...meta });
      parts.push({ type: `${item.type}-delta`, id, delta: item.text ?? '' });
      parts.push({ type: `${item.type}-end`, id, ...meta });
    } else parts.push({ ...item });
  });
  const meta = result.providerMetadata ? { providerMetadata: result.providerMetadata } : {};
  parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage, ...meta });
  return parts;
}
