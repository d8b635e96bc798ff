// The one rule of a redrive into an arriving outage (lib/redrive/arriving-outage.ts), on the
// evidence any selection kind yields: the clusters its dead letters belong to, its source's alarms.
import { describe, expect, it } from 'vitest';
import { outageQuietMs } from '@/lib/clustering/cluster-verdict';
import { outageOf } from '@/lib/redrive/arriving-outage';

const now = new Date('2026-12-05T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const CLUSTER = '11111111-1111-4111-8111-111111111111';
const DOMINANT = '22222222-2222-4222-8222-222222222222';

describe('a redrive into an arriving outage', () => {
  it('is a transient cluster whose latest error arrived within the quiet windows', () => {
    const lastSeen = ago(outageQuietMs() - 1);
    expect(outageOf({ clusters: [{ id: CLUSTER, errorClass: 'transient', lastSeen }], sourceAlarms: [] }, now)).toEqual({
      cause: 'cluster',
      clusterId: CLUSTER,
      errorClass: 'transient',
      verdict: 'outage',
      lastSeen: lastSeen.toISOString(),
    });
  });

  it('is not an outage whose errors stopped, nor poison, nor a cluster of unknown cause', () => {
    expect(outageOf({ clusters: [{ id: CLUSTER, errorClass: 'transient', lastSeen: ago(outageQuietMs()) }], sourceAlarms: [] }, now)).toBeNull();
    expect(outageOf({ clusters: [{ id: CLUSTER, errorClass: 'permanent', lastSeen: now }], sourceAlarms: [] }, now)).toBeNull();
    expect(outageOf({ clusters: [{ id: CLUSTER, errorClass: 'unknown', lastSeen: now }], sourceAlarms: [] }, now)).toBeNull();
    expect(outageOf({ clusters: [], sourceAlarms: [] }, now)).toBeNull();
  });

  it('is a source whose alarms say outage, naming the cluster its arrivals were mostly of', () => {
    const evaluatedAt = ago(30_000);
    const alarms = [
      { label: 'outage, errors stopped', evaluatedAt: ago(3_600_000), dominantClusterId: null },
      { label: 'outage', evaluatedAt, dominantClusterId: DOMINANT },
    ];
    expect(outageOf({ clusters: [], sourceAlarms: alarms }, now)).toEqual({
      cause: 'source alarm',
      clusterId: DOMINANT,
      errorClass: 'transient',
      verdict: 'outage',
      lastSeen: evaluatedAt.toISOString(),
    });
  });

  it('is not a source whose alarms say anything else', () => {
    for (const label of ['outage, errors stopped', 'poison', 'probable outage', 'probable poison', 'redrive paused', null]) {
      expect(outageOf({ clusters: [], sourceAlarms: [{ label, evaluatedAt: now, dominantClusterId: null }] }, now)).toBeNull();
    }
  });

  it('names the arriving cluster before the source alarm: it is the cause the lead must check', () => {
    const outage = outageOf(
      {
        clusters: [{ id: CLUSTER, errorClass: 'transient', lastSeen: now }],
        sourceAlarms: [{ label: 'outage', evaluatedAt: now, dominantClusterId: DOMINANT }],
      },
      now,
    );
    expect(outage).toMatchObject({ cause: 'cluster', clusterId: CLUSTER });
  });
});
