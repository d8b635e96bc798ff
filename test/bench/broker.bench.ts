// The broker core (lib/broker, in memory): 200,000 messages sent, received and acknowledged, in
// operations per second (a send, a receive and a settle are one operation each; target ≥ 3M ops/s).
// Two shapes: a backlog (all 200,000 sent first, then each received and settled: every message is
// alive at once) and a steady flow (each message sent, received and settled in turn).
// Rated on the process's own CPU time, since this machine's cores are shared with other work and
// wall time measures the neighbours; the wall-clock figure is printed beside it. Median of 7 runs
// after 2 warm-ups.
//   npx tsx test/bench/run.ts broker
import { BrokerQueue } from '@/lib/broker';
import type { BenchResult } from './run';

const N = 200_000;
const RUNS = 7;
const WARMUPS = 2;
const TARGET = 3_000_000;
const ACK = { kind: 'ack' } as const;

type Shape = 'backlog' | 'steady';

function once(shape: Shape): { cpuMs: number; wallMs: number } {
  const queue = new BrokerQueue({ maxReceives: 5, visibilityMs: 30_000, backoffMs: 1_000 });
  const body = new Uint8Array(64);
  const cpu = process.cpuUsage();
  const wall = performance.now();
  let now = 1_000;
  let settled = 0;
  if (shape === 'backlog') {
    for (let i = 0; i < N; i++) queue.send(body, now);
    for (let i = 0; i < N; i++, now++) if (queue.settle(queue.receive(now)!, ACK, now)) settled++;
  } else {
    for (let i = 0; i < N; i++, now++) {
      queue.send(body, now);
      if (queue.settle(queue.receive(now)!, ACK, now)) settled++;
    }
  }
  const wallMs = performance.now() - wall;
  const used = process.cpuUsage(cpu);
  if (settled !== N || queue.stats.ready + queue.stats.inFlight !== 0) throw new Error(`broker bench: ${settled} of ${N} settled`);
  return { cpuMs: (used.user + used.system) / 1000, wallMs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const shape of ['backlog', 'steady'] as const) {
    for (let i = 0; i < WARMUPS; i++) once(shape);
    const runs = Array.from({ length: RUNS }, () => once(shape));
    const ops = 3 * N;
    const cpuRate = ops / (median(runs.map((r) => r.cpuMs)) / 1000);
    const wallRate = ops / (median(runs.map((r) => r.wallMs)) / 1000);
    const what = shape === 'backlog' ? `${N} sent, then received and acked` : `${N} sent, received and acked in turn`;
    results.push(
      { name: `broker core ${what} (CPU time)`, value: Math.round(cpuRate), unit: 'ops/s', target: '≥ 3M ops/s', met: cpuRate >= TARGET },
      { name: `broker core ${what} (wall clock)`, value: Math.round(wallRate), unit: 'ops/s' },
    );
  }
  return results;
}
