/** Test-side JSON as the server sent it. */
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON read by tests
export type Json = any;

export interface Frame {
  id?: string;
  event?: string;
  data?: Json;
}

/** Reads an SSE response's frames; `stopAfter(frame)` true drops the connection there. */
export async function readFrames(
  response: Response,
  stopAfter: (frame: Frame) => boolean = () => false,
  abort?: AbortController,
): Promise<Frame[]> {
  const frames: Frame[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const frame = parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        if (frame.event === undefined) continue;
        frames.push(frame);
        if (stopAfter(frame)) {
          abort?.abort();
          return frames;
        }
      }
    }
  } catch (err) {
    if (!abort?.signal.aborted) throw err;
  }
  return frames;
}

function parseFrame(text: string): Frame {
  const frame: Frame = {};
  for (const line of text.split('\n')) {
    const [key, ...rest] = line.split(': ');
    const value = rest.join(': ');
    if (key === 'id') frame.id = value;
    if (key === 'event') frame.event = value;
    if (key === 'data') frame.data = JSON.parse(value);
  }
  return frame;
}

export const TERMINAL = ['run-finished', 'run-paused', 'run-error'];

export function isTerminal(message: Json): boolean {
  return message.events.some((e: Json) => TERMINAL.includes(e.type));
}
