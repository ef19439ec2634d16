/**
 * Each function's cold import next to a hand-written peer (bench/peers/): the same work with the
 * bare SDK clients and, where the function runs agents, the bare OpenAI Agents SDK. Both are
 * bundled the same way (infra/bundling.ts, AWS SDK bundled: the default) and imported in a fresh
 * process each, the function and its peer in turn (order swapped every pair), so machine noise
 * hits both alike. The ratio is the median of the pair-by-pair ratios of the in-process import
 * time (wall and CPU). Aim (issue #29): ≤ 1.05× for worker, fan-out and ws-message.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleFile, coldImport, median, ms, type Timing } from './bundle-tools.js';

/** function → its peer. */
export const PEERS: Record<string, string> = {
  worker: 'bench/peers/worker.ts',
  fanout: 'bench/peers/fanout.ts',
  'ws-message': 'bench/peers/ws-message.ts',
  http: 'bench/peers/http.ts',
  stream: 'bench/peers/stream.ts',
};
export const PEER_AIMED = new Set(['worker', 'fanout', 'ws-message']);
export const PEER_AIM = 1.05;

export interface PeerRow {
  name: string;
  kb: number;
  peerKb: number;
  ours: number;
  peer: number;
  wall: number;
  cpu: number;
}

/** Bundles each function and its peer into `out`, then times them pair by pair. */
export async function comparePeers(
  out: string,
  node: string,
  samples: number,
  names = Object.keys(PEERS),
): Promise<PeerRow[]> {
  const rows: PeerRow[] = [];
  for (const name of names) {
    const ours = join(out, 'peers', name, 'index.mjs');
    const peer = join(out, 'peers', `${name}-peer`, 'index.mjs');
    await bundleFile({ entry: `functions/${name}.ts`, outfile: ours, bundleAwsSdk: true });
    await bundleFile({ entry: PEERS[name] as string, outfile: peer, bundleAwsSdk: true });
    const a: Timing[] = [];
    const b: Timing[] = [];
    // One of each untimed first: the file cache is warm for both.
    coldImport(ours, node);
    coldImport(peer, node);
    for (let i = 0; i < samples; i++) {
      if (i % 2 === 0) {
        a.push(coldImport(ours, node));
        b.push(coldImport(peer, node));
      } else {
        b.push(coldImport(peer, node));
        a.push(coldImport(ours, node));
      }
    }
    const pairs = (key: keyof Timing) => median(a.map((t, i) => t[key] / (b[i] as Timing)[key]));
    rows.push({
      name,
      kb: readFileSync(ours).length / 1024,
      peerKb: readFileSync(peer).length / 1024,
      ours: median(a.map((t) => t.import)),
      peer: median(b.map((t) => t.import)),
      wall: pairs('import'),
      cpu: pairs('cpu'),
    });
  }
  return rows;
}

export function printPeers(rows: PeerRow[], samples: number, version: string): boolean {
  console.log(
    `\npeers: each function's cold import next to its hand-written peer (bench/peers/), ${samples} pairs interleaved, Node ${version}`,
  );
  console.log(
    `| function | minified | peer minified | import | peer import | wall ratio | CPU ratio | aim (≤ ${PEER_AIM}×) |`,
  );
  console.log(`|${'---|'.repeat(8)}`);
  let met = true;
  for (const row of rows) {
    const aimed = PEER_AIMED.has(row.name);
    const ok = row.wall <= PEER_AIM && row.cpu <= PEER_AIM;
    if (aimed && !ok) met = false;
    const aim = aimed ? (ok ? 'met' : 'missed') : '';
    console.log(
      `| ${row.name} | ${row.kb.toFixed(0)} KB | ${row.peerKb.toFixed(0)} KB | ${ms(row.ours)} | ${ms(row.peer)} | ${row.wall.toFixed(2)}× | ${row.cpu.toFixed(2)}× | ${aim} |`,
    );
  }
  return met;
}
