import { randomBytes } from 'node:crypto';

/** The stream function's URL as the smoke check reaches it, and whether it serves the page. */
export interface StreamTarget {
  readonly streamUrl: string;
  readonly token: string;
  readonly agent: string;
  /** The playground page is deployed (`playground=true`; always in the local stack). */
  readonly playground: boolean;
}

type Step = [name: string, body: () => Promise<string>];

const ASK = 'weather in Paris?';

/** One SSE frame: our events envelope (`/runs`) or one AG-UI event (`/ag-ui`). */
interface Frame {
  readonly id?: number;
  readonly data: { readonly type?: string; readonly events?: readonly { type: string }[] };
}

/** The `data:` of each SSE frame, parsed, with its `id:` when it has one. */
async function frames(res: Response): Promise<Frame[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data: '))
    .map((frame) => {
      const id = /^id: (\d+)$/m.exec(frame)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null');
      return id === undefined ? { data } : { id: Number(id), data };
    });
}

function post(target: StreamTarget, path: string, body: unknown): Promise<Response> {
  return fetch(`${target.streamUrl.replace(/\/$/, '')}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${target.token}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: JSON.stringify(body),
  });
}

async function expectStream(res: Response, path: string): Promise<void> {
  const type = res.headers.get('content-type') ?? '';
  if (res.status !== 200 || !type.startsWith('text/event-stream')) {
    const body = (await res.text()).slice(0, 300);
    throw new Error(`POST ${path}: ${res.status} ${type} ${body}`);
  }
}

/** The StreamUrl's steps: a native SSE run, an AG-UI run, and the page when it is deployed. */
export function streamSteps(target: StreamTarget): Step[] {
  const session = (tag: string) => `smoke-${tag}-${randomBytes(6).toString('hex')}`;
  const steps: Step[] = [
    [
      'stream (SSE)',
      async () => {
        const res = await post(target, '/runs', {
          agent: target.agent,
          sessionId: session('sse'),
          input: ASK,
        });
        await expectStream(res, '/runs');
        const got = await frames(res);
        const seqs = got.map((f) => f.id);
        if (seqs.some((seq, i) => seq !== i))
          throw new Error(`seq not 0, 1, 2…: ${seqs.join(',')}`);
        const events = got.flatMap((f) => f.data.events ?? []);
        const last = events.at(-1)?.type;
        if (last !== 'run-finished') throw new Error(`expected run-finished last, got ${last}`);
        return `${events.length} events in ${got.length} frames, seq 0..${got.length - 1}`;
      },
    ],
    [
      'AG-UI (SSE)',
      async () => {
        const threadId = session('ag-ui');
        const res = await post(target, '/ag-ui', {
          threadId,
          runId: `smoke-${randomBytes(6).toString('hex')}`,
          messages: [{ id: 'm-0', role: 'user', content: ASK }],
          tools: [],
          context: [],
          state: {},
          forwardedProps: { agent: target.agent },
        });
        await expectStream(res, '/ag-ui');
        const types = (await frames(res)).map((f) => f.data.type as string);
        if (types[0] !== 'RUN_STARTED' || types.at(-1) !== 'RUN_FINISHED') {
          throw new Error(`expected RUN_STARTED … RUN_FINISHED, got ${types.join(',')}`);
        }
        return `${types.length} AG-UI events, ${types.filter((t) => t.startsWith('TOOL_CALL')).length} tool call events`;
      },
    ],
  ];
  if (target.playground) {
    steps.push([
      'playground page',
      async () => {
        const base = target.streamUrl.replace(/\/$/, '');
        const page = await fetch(`${base}/`);
        const html = await page.text();
        if (page.status !== 200 || !html.includes('Agent Kernel playground')) {
          throw new Error(`GET /: ${page.status} ${html.slice(0, 200)}`);
        }
        const config = (await (await fetch(`${base}/playground/config.json`)).json()) as {
          httpUrl?: string;
          wsUrl?: string;
        };
        if (!config.httpUrl || !config.wsUrl)
          throw new Error(`config.json: ${JSON.stringify(config)}`);
        return `GET / 200, talks to ${config.httpUrl} and ${config.wsUrl}`;
      },
    ]);
  }
  return steps;
}
