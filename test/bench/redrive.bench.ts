// Redrive pacing: achieved rate vs requested at 10, 100 and 1,000 messages/s into a built-in
// source queue (target: within ±5%, and no 1-second window above the requested rate by > 10%).
// Each rate runs 5 s of sends. The measurement runs in a child process with its own database and
// queue prefix, since lib/env is read once per process.
//   npx tsx test/bench/run.ts redrive
import type { BenchResult } from './run';
import { measureWhenFlagged, runBenchChild } from './support';
import { createTeam } from '@/lib/admin/teams';
import { SYSTEM } from '@/lib/auth';
import { db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { producerQueue, QUEUES } from '@/lib/queue';
import { startRedrive } from '@/lib/redrive';
import { startRedriveSupervisor } from '@/lib/redrive/supervisor';
import { createSource } from '@/lib/sources/create-source';

const CHILD_FLAG = '--redrive-bench-child';
const RATES = [10, 100, 1_000];
const SECONDS = 5;

interface Measured {
  rate: number;
  sends: number;
  achieved: number;
  maxWindow: number;
}

/** Sends per second over the run, and the busiest 1-second window (sliding, from each send). */
function measure(rate: number, times: number[]): Measured {
  const t = [...times].sort((a, b) => a - b);
  const span = (t[t.length - 1]! - t[0]!) / 1000;
  let maxWindow = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (t[j]! < t[i]! - 999) j++;
    maxWindow = Math.max(maxWindow, i - j + 1);
  }
  // n sends span n - 1 intervals.
  return { rate, sends: t.length, achieved: span > 0 ? (t.length - 1) / span : 0, maxWindow };
}

async function child(): Promise<Measured[]> {
  await createTeam(SYSTEM, { name: 'bench' });
  const supervisor = await startRedriveSupervisor({ reconcileMs: 500 });
  const out: Measured[] = [];
  for (const rate of RATES) {
    const source = await createSource(SYSTEM, { name: `bench-${rate}`, team: 'bench' });
    const n = rate * SECONDS;
    const payload = new TextEncoder().encode(JSON.stringify({ order: 1, lines: [{ sku: 'A-1', qty: 2 }] }));
    for (let i = 0; i < n; i += 5_000) {
      const batch = Array.from({ length: Math.min(5_000, n - i) }, (_, k) => ({
        messageId: `b-${i + k}`,
        payload,
        contentType: 'application/json',
        reason: 'Rejected' as const,
        errorType: 'SchemaError',
        errorMessage: 'unknown field "gift"',
      }));
      await recordDeadLetters(source, batch);
    }
    const task = await startRedrive({ ...SYSTEM, label: 'bench' }, { selection: { source: source.name }, ratePerSecond: rate, outcomeWindowSeconds: 1 });
    // Nothing consumes: the task completes when the last send's 1-s outcome window ends (no death seen).
    for (;;) {
      const t = await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } });
      if (t.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const items = await db().redriveItem.findMany({ where: { taskId: task.id }, select: { sentAt: true } });
    out.push(
      measure(
        rate,
        items.map((i) => i.sentAt!.getTime()),
      ),
    );
    await producerQueue(QUEUES.source(source.name)).obliterate({ force: true });
  }
  await supervisor.stop();
  return out;
}

export async function run(): Promise<BenchResult[]> {
  const measured = await runBenchChild<Measured[]>('redrive', import.meta.url, CHILD_FLAG, { timeoutMs: 180_000 });
  return measured.flatMap((m) => [
    {
      name: `redrive.rate ${m.rate}/s achieved (${m.sends} sends)`,
      value: Number(m.achieved.toFixed(2)),
      unit: 'msg/s',
      baseline: { name: 'requested', value: m.rate },
      target: '±5% of requested',
      met: Math.abs(m.achieved - m.rate) <= m.rate * 0.05,
    },
    {
      name: `redrive.rate ${m.rate}/s busiest 1-s window`,
      value: m.maxWindow,
      unit: 'msgs',
      baseline: { name: 'requested', value: m.rate },
      target: `≤ ${Math.floor(m.rate * 1.1)} (requested + 10%)`,
      met: m.maxWindow <= m.rate * 1.1,
    },
  ]);
}

measureWhenFlagged(CHILD_FLAG, child);
