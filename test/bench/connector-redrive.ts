// What the connector benches share: redrive pacing measured where the broker's consumer receives
// the messages (the caller's `arrivals`, reset per rate), and the figures it reports.
import { SYSTEM } from '@/lib/auth';
import { db } from '@/lib/db';
import { cancelRedrive, startRedrive } from '@/lib/redrive';
import { startRedriveSupervisor } from '@/lib/redrive/supervisor';
import type { BenchResult } from './run';

export interface RedriveFigure {
  rate: number;
  received: number;
  achieved: number;
}

/** Redrives `seconds` worth of the source's dead letters at each rate in turn; `arrivals()` are the receiver's times (performance.now()). */
export async function measureRedrivePacing(
  sourceId: string,
  rates: number[],
  seconds: number,
  receiver: { arrivals(): number[]; reset(): void },
): Promise<RedriveFigure[]> {
  const actor = { ...SYSTEM, label: 'bench' };
  const supervisor = await startRedriveSupervisor({ reconcileMs: 500 });
  const figures: RedriveFigure[] = [];
  const open = await db().deadLetter.findMany({ where: { sourceId }, select: { id: true }, orderBy: { id: 'asc' } });
  let offset = 0;
  for (const rate of rates) {
    const ids = open.slice(offset, offset + rate * seconds).map((d) => d.id.toString());
    offset += ids.length;
    receiver.reset();
    const task = await startRedrive(actor, { selection: { ids }, ratePerSecond: rate });
    for (;;) {
      const t = await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } });
      if (t.sent === ids.length && receiver.arrivals().length >= ids.length) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const t = [...receiver.arrivals()].sort((a, b) => a - b);
    const span = (t[t.length - 1]! - t[0]!) / 1000;
    figures.push({ rate, received: t.length, achieved: span > 0 ? (t.length - 1) / span : 0 });
    // Every item is sent and received: the task need not wait out its outcome window for the next rate.
    const end = await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } });
    if (['queued', 'running', 'paused'].includes(end.status)) await cancelRedrive(actor, task.id, { reason: 'bench: next rate' });
  }
  await supervisor.stop();
  return figures;
}

/**
 * measureRedrivePacing at a reader that polls the target meanwhile: `readOnce` is called again and
 * again, and says through `arrived` how many messages it has just taken.
 */
export async function measureRedrivePacingWhileReading(
  sourceId: string,
  rates: number[],
  seconds: number,
  readOnce: (arrived: (count: number) => void) => Promise<void>,
): Promise<RedriveFigure[]> {
  let arrivals: number[] = [];
  const arrived = (count: number) => {
    const now = performance.now();
    for (let i = 0; i < count; i++) arrivals.push(now);
  };
  let reading = true;
  const reader = (async () => {
    while (reading) await readOnce(arrived);
  })();
  try {
    return await measureRedrivePacing(sourceId, rates, seconds, { arrivals: () => arrivals, reset: () => (arrivals = []) });
  } finally {
    reading = false;
    await reader;
  }
}

/** The pacing figures as bench results (target ±5% of the requested rate). */
export function redrivePacingResults(connector: string, unit: string, figures: RedriveFigure[]): BenchResult[] {
  return figures.map((r) => ({
    name: `connectors.${connector} redrive ${r.rate}/s received (${r.received} ${unit === 'msg/s' ? 'messages' : 'jobs'})`,
    value: Number(r.achieved.toFixed(2)),
    unit,
    baseline: { name: 'requested', value: r.rate },
    target: '±5% of requested',
    met: Math.abs(r.achieved - r.rate) <= r.rate * 0.05,
  }));
}
