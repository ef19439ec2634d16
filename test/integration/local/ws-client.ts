import WebSocket from 'ws';

/** A WebSocket client of the local stack; rejects with the HTTP status of a refused upgrade. */
export function connect(wsUrl: string, token?: string): Promise<WebSocket> {
  const ws = new WebSocket(token ? `${wsUrl}?token=${token}` : wsUrl);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

/** Messages until one carries a terminal event or is an `error` (or the budget runs out). */
export function untilTerminal(
  ws: WebSocket,
  terminal: readonly string[] = ['run-finished', 'run-error', 'run-paused'],
  budgetMs = 20_000,
): Promise<any[]> {
  const messages: any[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no terminal event: ${JSON.stringify(messages)}`)),
      budgetMs,
    );
    ws.on('message', (data) => {
      const message = JSON.parse(String(data));
      messages.push(message);
      const end =
        message.type === 'error' ||
        (message.type === 'events' &&
          message.events.some((e: { type: string }) => terminal.includes(e.type)));
      if (end) {
        clearTimeout(timer);
        resolve(messages);
      }
    });
  });
}
