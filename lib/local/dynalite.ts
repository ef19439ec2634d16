import { createRequire } from 'node:module';
import type { Server } from 'node:net';

/** dynalite ships no types: the part we use. */
type Dynalite = (options: { createTableMs?: number; deleteTableMs?: number }) => Server;

export interface LocalEndpoint {
  url: string;
  stop(): Promise<void>;
}

/** dynalite (pure JS, in memory) on an ephemeral port of 127.0.0.1. */
export async function startDynalite(): Promise<LocalEndpoint> {
  const dynalite = createRequire(import.meta.url)('dynalite') as Dynalite;
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
