// The task page's rate chart reads redriveSeries: sends and outcomes per second. A line needs two
// points, and a second without activity is a zero, not a straight line drawn across the gap.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { db } from '@/lib/db';
import { redriveSeries, startRedrive } from '@/lib/redrive';
import { worldWithParked } from './redrive-support';

/** Marks the task's items sent (and acknowledged) at the given instants, as the runner would. */
async function sentAt(taskId: string, instants: Date[]) {
  for (const [i, at] of instants.entries()) {
    await db()
      .$executeRaw`UPDATE redrive_items SET state = 'acknowledged', sent_at = ${at}, outcome_at = ${at} WHERE task_id = ${taskId}::uuid AND seq = ${i + 1}`;
  }
  await db().redriveTask.update({ where: { id: taskId }, data: { sent: instants.length } });
}

/**
 * A redrive of as many parked dead letters as `offsetsMs`, sent at those offsets from a whole second
 * ten seconds ago: its rate series, and that second.
 */
async function seriesOfSends(offsetsMs: number[]) {
  const { w } = await worldWithParked(offsetsMs.length);
  const t = await startRedrive(w.support, { selection: { source: w.orders.name }, ratePerSecond: 200 });
  const second = new Date(Math.floor((Date.now() - 10_000) / 1000) * 1000);
  await sentAt(
    t.id,
    offsetsMs.map((ms) => new Date(second.getTime() + ms)),
  );
  return { points: await redriveSeries(w.support, t.id), second };
}

describe('redrive rate series', () => {
  freshDatabase();

  it('draws a redrive that finished inside one second as a rise from zero and back', async () => {
    const { points, second } = await seriesOfSends([0, 100, 200, 300, 400]);
    expect(points.map((p) => p.sent)).toEqual([0, 5, 0]);
    expect(points.map((p) => p.acknowledged)).toEqual([0, 5, 0]);
    expect(points.map((p) => p.at)).toEqual([-1, 0, 1].map((s) => new Date(second.getTime() + s * 1000).toISOString()));
  });

  it('counts a quiet second inside the window as zero', async () => {
    const { points } = await seriesOfSends([0, 3_000]);
    expect(points.map((p) => p.sent)).toEqual([0, 1, 0, 0, 1, 0]);
    expect(points.map((p) => p.t)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
