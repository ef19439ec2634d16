import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeqOrder } from '../../../lib/transport/seq-order.js';
import { http, useLocalStack, useWsUsers, type WsUser } from '../local/clients.js';
import { type Frame, isTerminal, type Json, readFrames } from './sse-frames.js';

// Runs long enough to drop in: the offline model paced, the adaptive window short, a long echo.
const PACED = {
  AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND: '400',
  EVENT_BATCH_MAX_DELAY_MS: '5',
  EVENT_BATCH_MIN_DELAY_MS: '1',
};
const kept: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const [key, value] of Object.entries(PACED)) {
    kept[key] = process.env[key];
    process.env[key] = value;
  }
});
afterAll(() => {
  for (const [key, value] of Object.entries(kept)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

const INPUT = `Please repeat: ${'the quick brown fox jumps over the lazy dog '.repeat(6)}`;

/** One connection's view of a run: every raw message, and the run in order (SeqOrder). */
class RunView {
  readonly raw: Json[] = [];
  readonly ordered: Json[] = [];
  readonly errors: Json[] = [];
  readonly #order: SeqOrder<Json>;
  #onReady: () => void = () => undefined;

  constructor(
    readonly user: WsUser,
    readonly runId: string,
    afterSeq = -1,
  ) {
    this.#order = new SeqOrder(afterSeq);
    user.socket.on('message', (data) => this.feed(JSON.parse(String(data))));
  }

  feed(message: Json): void {
    if (message.type === 'error' && !String(message.requestId).startsWith('wr-pause')) {
      this.errors.push(message);
    }
    if (message.type !== 'events' || message.runId !== this.runId) return;
    this.raw.push(message);
    this.ordered.push(...this.#order.accept(message));
    this.#onReady();
  }

  get ended(): boolean {
    return this.#order.ended;
  }

  /** Resolves once the ordered view passes `seq` (or the run ended). */
  reach(seq: number, budgetMs = 60_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`never reached ${seq}: ${JSON.stringify([this.raw, this.errors])}`)),
        budgetMs,
      );
      const check = () => {
        if (this.ended || (this.ordered.at(-1)?.seq ?? -1) >= seq) {
          clearTimeout(timer);
          this.#onReady = () => undefined;
          resolve();
        }
      };
      this.#onReady = check;
      check();
    });
  }
}

/** Each seq's messages, wherever they came from, carry that seq's one content. */
function expectOneContentPerSeq(views: RunView[], truth: Map<number, Json>) {
  for (const view of views) {
    for (const message of view.raw) expect(message).toEqual(truth.get(message.seq));
  }
}

describe('reconnect mid-run on a new connection: WebSocket subscribe with afterSeq, SSE Last-Event-ID', () => {
  const stack = useLocalStack();
  const user = useWsUsers(stack);

  it('clients dropping at random seqs and reconnecting get k+1 … terminal exactly once (50 drop points)', async () => {
    const requester = await user('wr-alice');
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: 14 }), { minLength: 10, maxLength: 10 }),
        async (drops) => {
          // Prepare: a run started by the requester, ten observers of it from seq 0
          const sessionId = `wr-live-${run++}`;
          const requestId = `wr-${sessionId}`;
          const all = new RunViewLater(requester);
          requester.send({ action: 'run', requestId, agent: 'demo', sessionId, input: INPUT });
          const accepted = await requester.answer(requestId);
          const { runId } = accepted;
          const full = all.start(runId);
          const observers = await Promise.all(
            drops.map(async () => {
              const view = new RunView(await user('wr-alice'), runId);
              view.user.send({ action: 'subscribe', sessionId, runId });
              return view;
            }),
          );

          // Act: each drops once it has seq k, then reconnects on a new connection with k
          const resumed = await Promise.all(
            observers.map(async (view, i) => {
              await view.reach(drops[i] ?? 0);
              view.user.close();
              const k = view.ordered.at(-1)?.seq ?? -1;
              const again = new RunView(await user('wr-alice'), runId, k);
              again.user.send({ action: 'subscribe', sessionId, runId, afterSeq: k });
              // Dropped at the terminal event: a reconnect with its seq has nothing to get.
              if (view.ended) await pauseFor(again.user);
              else await again.reach(Number.MAX_SAFE_INTEGER);
              expect(again.errors).toEqual([]);
              return { before: view, after: again, k };
            }),
          );
          await full.reach(Number.MAX_SAFE_INTEGER);

          // Assess: the requester's run is the truth; every client has it once, in order
          const truth = full.ordered;
          expect(truth.map((m) => m.seq)).toEqual(truth.map((_, i) => i));
          expect(truth.filter(isTerminal)).toHaveLength(1);
          const bySeq = new Map(truth.map((m) => [m.seq, m]));
          for (const { before, after, k } of resumed) {
            const got = [...before.ordered.filter((m) => m.seq <= k), ...after.ordered];
            expect(got).toEqual(truth);
            expectOneContentPerSeq([before, after], bySeq);
          }
        },
      ),
      { numRuns: 5 },
    );
  }, 300_000);

  it('SSE followers dropping at random seqs and reconnecting with Last-Event-ID get k+1 … terminal once (50 drop points)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat({ max: 14 }), fc.boolean()), { minLength: 10, maxLength: 10 }),
        async (drops) => {
          // Prepare: a run streamed to its requester; ten followers of it from the start
          const sessionId = `wr-sse-${run++}`;
          const followers: Promise<{ before: Frame[]; after: Frame[] }>[] = [];
          const response = await sse(stack, 'wr-erin', '/runs', {
            method: 'POST',
            body: JSON.stringify({ agent: 'demo', sessionId, input: INPUT }),
          });
          const truth = await readFrames(response, (frame) => {
            if (followers.length === 0) {
              const { runId } = frame.data;
              for (const [k, byQuery] of drops)
                followers.push(follow(sessionId, runId, k, byQuery));
            }
            return false;
          });

          // Act: (in follow) each drops at seq k and reconnects from the last id it has
          const views = await Promise.all(followers);

          // Assess
          const messages = truth.map((f) => f.data);
          expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i));
          expect(messages.filter(isTerminal)).toHaveLength(1);
          for (const { before, after } of views) {
            const got = [...before, ...after];
            expect(got.map((f) => f.data)).toEqual(messages);
            expect(got.map((f) => Number(f.id))).toEqual(messages.map((m) => m.seq));
          }
        },
      ),
      { numRuns: 5 },
    );

    async function follow(sessionId: string, runId: string, k: number, byQuery: boolean) {
      const path = `/sessions/${sessionId}/runs/${runId}/events`;
      const abort = new AbortController();
      const first = await sse(stack, 'wr-erin', path, { signal: abort.signal });
      const before = await readFrames(first, (f) => Number(f.id) >= k, abort);
      const last = before.at(-1)?.id ?? '';
      if (before.some((f) => isTerminal(f.data))) return { before, after: [] };
      const again = byQuery
        ? await sse(stack, 'wr-erin', `${path}?lastEventId=${last}`)
        : await sse(stack, 'wr-erin', path, { headers: { 'last-event-id': last } });
      return { before, after: await readFrames(again) };
    }
  }, 300_000);

  it('a finished run is replayed from storage alone, from any seq', async () => {
    const alice = await user('wr-bob');
    alice.send({
      action: 'run',
      requestId: 'wr-done',
      agent: 'demo',
      sessionId: 'wr-done',
      input: INPUT,
    });
    const { runId } = await alice.answer('wr-done');
    await alice.terminal(runId);
    const live = alice.messages.filter((m) => m.type === 'events' && m.runId === runId);
    for (const k of [-1, 0, Math.floor(live.length / 2), live.length - 1]) {
      const view = new RunView(await user('wr-bob'), runId, k);
      view.user.send({
        action: 'subscribe',
        sessionId: 'wr-done',
        runId,
        ...(k >= 0 ? { afterSeq: k } : {}),
      });
      if (k < live.length - 1) await view.reach(Number.MAX_SAFE_INTEGER);
      else await pauseFor(view.user);
      // Nothing live: each stored message once, in order, straight from storage.
      expect(view.raw).toEqual(live.slice(k + 1));
    }
  });

  it("another principal's or a guessed run's subscribe is not-found and subscribes nothing", async () => {
    const carol = await user('wr-carol');
    carol.send({
      action: 'run',
      requestId: 'wr-own',
      agent: 'demo',
      sessionId: 'wr-own',
      input: 'hi',
    });
    const { runId } = await carol.answer('wr-own');
    await carol.terminal(runId);
    const mallory = await user('wr-mallory');
    const attempts = [
      { sessionId: 'wr-own', runId, afterSeq: 0 },
      { sessionId: 'wr-own', runId },
      { sessionId: 'wr-nobody', runId, afterSeq: 0 },
    ];
    for (const [i, attempt] of attempts.entries()) {
      mallory.send({ action: 'subscribe', requestId: `wr-m-${i}`, ...attempt });
      const answer = await mallory.answer(`wr-m-${i}`);
      expect(answer).toMatchObject({ type: 'error', code: 'not-found' });
    }
    // As a session nobody has, and as a run id guessed by the owner: the same not-found.
    mallory.send({ action: 'subscribe', requestId: 'wr-n', sessionId: 'wr-none', runId });
    const nobody = await mallory.answer('wr-n');
    const theirs = await mallory.answer('wr-m-0');
    expect(theirs.message.replace('wr-own', 'wr-none')).toBe(nobody.message);
    carol.send({ action: 'subscribe', requestId: 'wr-g', sessionId: 'wr-own', runId: 'no-such' });
    const guessed = await carol.answer('wr-g');
    expect(guessed.code).toBe('not-found');
    expect(Object.keys(guessed).sort()).toEqual(Object.keys(theirs).sort());
    // Mallory's connection got nothing of carol's session, then or after her next run.
    carol.send({
      action: 'run',
      requestId: 'wr-own-2',
      agent: 'demo',
      sessionId: 'wr-own',
      input: 'hi',
    });
    const second = await carol.answer('wr-own-2');
    await carol.terminal(second.runId);
    await pauseFor(mallory);
    expect(mallory.eventSessions().has('wr-own')).toBe(false);
  });

  it('bad afterSeq values get a clear code and subscribe nothing', async () => {
    const dan = await user('wr-dan');
    dan.send({
      action: 'run',
      requestId: 'wr-bad',
      agent: 'demo',
      sessionId: 'wr-bad',
      input: 'hi',
    });
    const { runId } = await dan.answer('wr-bad');
    await dan.terminal(runId);
    const last = dan.messages.filter((m) => m.type === 'events').at(-1).seq;
    const other = await user('wr-dan');
    const cases: [unknown, string][] = [
      [-1, 'invalid-message'],
      [1.5, 'invalid-message'],
      ['3', 'invalid-message'],
      [last + 1, 'invalid-seq'],
    ];
    for (const [i, [afterSeq, code]] of cases.entries()) {
      other.send({
        action: 'subscribe',
        requestId: `wr-b-${i}`,
        sessionId: 'wr-bad',
        runId,
        afterSeq,
      });
      const answer = await other.answer(`wr-b-${i}`);
      expect(answer, String(afterSeq)).toMatchObject({ type: 'error', code });
      expect(answer.message).toMatch(/afterSeq/);
    }
    other.send({ action: 'subscribe', requestId: 'wr-b-x', sessionId: 'wr-bad', afterSeq: 0 });
    expect(await other.answer('wr-b-x')).toMatchObject({ code: 'invalid-message' });
    expect((await other.answer('wr-b-x')).message).toMatch(/runId/);
    // None of these subscribed: the session's next run reaches only its requester.
    dan.send({
      action: 'run',
      requestId: 'wr-bad-2',
      agent: 'demo',
      sessionId: 'wr-bad',
      input: 'hi',
    });
    const next = await dan.answer('wr-bad-2');
    await dan.terminal(next.runId);
    await pauseFor(other);
    expect(other.messages.filter((m) => m.type === 'events')).toEqual([]);
    // The HTTP poll of the same run agrees with what the WebSocket sent.
    const polled = await http(stack, 'wr-dan', 'GET', `/sessions/wr-bad/runs/${runId}/events`);
    expect(polled.body.messages).toEqual(
      dan.messages.filter((m) => m.type === 'events' && m.runId === runId),
    );
  });
});

/** An SSE request to the stream function as `principal`. */
async function sse(
  stack: { streamUrl: string; tokenFor(p: string): Promise<string> },
  principal: string,
  path: string,
  init: {
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    signal?: AbortSignal;
  } = {},
): Promise<Response> {
  return fetch(`${stack.streamUrl}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${await stack.tokenFor(principal)}`,
      accept: 'text/event-stream',
      'content-type': 'application/json',
      ...init.headers,
    },
  });
}

/** The requester's view, attached once its run id is known (its events may come first). */
class RunViewLater {
  readonly #early: Json[] = [];
  constructor(readonly user: WsUser) {
    user.socket.on('message', (data) => this.#early.push(JSON.parse(String(data))));
  }

  start(runId: string): RunView {
    const view = new RunView(this.user, runId);
    for (const message of this.#early) view.feed(message);
    return view;
  }
}

/**
 * Lets a connection receive whatever fan-out would still post: a round trip on the same socket
 * (a `subscribe` of a session nobody has, answered after anything queued before it).
 */
async function pauseFor(user: WsUser): Promise<void> {
  const requestId = `wr-pause-${Math.random().toString(36).slice(2)}`;
  user.send({ action: 'subscribe', requestId, sessionId: `wr-none-${requestId}` });
  await user.answer(requestId);
}
