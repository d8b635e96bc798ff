// Rate waves: each episode of a source's rate alarm, from leaving OK to OK again, with the clusters
// whose dead letters drove it. Written by the alarm evaluation in its own transaction (so a wave and
// the alarm's transitions never disagree); read by "after a wave" redrive rules.
import type { Tx } from '@/lib/db';
import type { AlarmTransition } from '@/lib/notifications/alarm-message';

/** A cluster with less than this share of the wave's dead letters did not drive it (strays of a trickle). */
export const WAVE_CLUSTER_MIN_SHARE = 0.1;

/**
 * Open, raise or close the source's wave for each rate-alarm transition. The wave's dead letters are
 * those that arrived from one rate window before it started (what made the alarm leave OK) to its end.
 */
export async function recordWaves(tx: Tx, transitions: readonly AlarmTransition[], now: Date, rateWindowMs: number): Promise<void> {
  for (const t of transitions) {
    if (t.kind !== 'rate') continue;
    if (t.from === 'OK') {
      await tx.rateWave.create({ data: { sourceId: t.sourceId, startedAt: now, peak: t.to } });
    } else if (t.to === 'ALARM') {
      await tx.rateWave.updateMany({ where: { sourceId: t.sourceId, endedAt: null }, data: { peak: 'ALARM' } });
    } else if (t.to === 'OK') {
      const open = await tx.rateWave.findFirst({ where: { sourceId: t.sourceId, endedAt: null }, orderBy: { id: 'desc' } });
      if (!open) continue; // an episode older than the wave record: nothing to close
      const from = new Date(open.startedAt.getTime() - rateWindowMs);
      const rows = await tx.$queryRaw<{ cluster_id: string; n: number }[]>`
        SELECT cluster_id::text, count(*)::int AS n FROM dead_letters
        WHERE source_id = ${t.sourceId}::uuid AND cluster_id IS NOT NULL AND dead_at > ${from} AND dead_at <= ${now}
        GROUP BY cluster_id ORDER BY n DESC, cluster_id`;
      const total = rows.reduce((a, r) => a + r.n, 0);
      const drove = rows.filter((r) => r.n >= total * WAVE_CLUSTER_MIN_SHARE).map((r) => r.cluster_id);
      await tx.rateWave.updateMany({ where: { sourceId: t.sourceId, endedAt: null }, data: { endedAt: now, deadLetters: total, clusterIds: drove } });
    }
  }
}
