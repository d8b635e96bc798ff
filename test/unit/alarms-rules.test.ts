import { describe, expect, it } from 'vitest';
import { HOUR, DAY, SECOND } from '@/lib/clock';
import {
  CONFIRM_MS,
  HINTS,
  RULES,
  classify,
  describe as describeAlarm,
  keptLabel,
  nextState,
  targetLevel,
  transientStillArriving,
  type SourceObservation,
} from '@/lib/model/alarm-rules';

const t = (ms: number) => new Date(Date.UTC(2026, 2, 2) + ms);
const obs = (o: Partial<SourceObservation>): SourceObservation => ({ openCount: 0, oldestAgeMs: null, ageDeadlineMs: 7 * DAY, rateCount: 0, ...o });

describe('alarm state machine', () => {
  it('passes a wanted ALARM through PENDING until it held for the confirm time', () => {
    const confirm = RULES.depthConfirmMs;
    let p = nextState(undefined, 'ALARM', t(0), confirm);
    expect(p).toEqual({ state: 'PENDING', since: t(0) });
    p = nextState(p, 'ALARM', t(confirm - SECOND), confirm);
    expect(p).toEqual({ state: 'PENDING', since: t(0) });
    p = nextState(p, 'ALARM', t(confirm), confirm);
    expect(p).toEqual({ state: 'ALARM', since: t(confirm) });
    p = nextState(p, 'ALARM', t(2 * confirm), confirm);
    expect(p.since).toEqual(t(confirm));
    expect(nextState(p, 'OK', t(3 * confirm), confirm)).toEqual({ state: 'OK', since: t(3 * confirm) });
  });

  it('raises at once where no confirm time applies, and steps down as the target drops', () => {
    let p = nextState(undefined, 'ALARM', t(0), 0);
    expect(p.state).toBe('ALARM');
    p = nextState(p, 'PENDING', t(1), 0);
    expect(p).toEqual({ state: 'PENDING', since: t(1) });
  });

  it('a blip that clears before the confirm time never becomes ALARM', () => {
    const p = nextState(undefined, 'ALARM', t(0), RULES.depthConfirmMs);
    const cleared = nextState(p, 'OK', t(15 * SECOND), RULES.depthConfirmMs);
    expect(cleared.state).toBe('OK');
    expect(nextState(cleared, 'ALARM', t(RULES.depthConfirmMs + SECOND), RULES.depthConfirmMs).state).toBe('PENDING');
  });
});

describe('alarm targets', () => {
  it('depth wants ALARM while anything is open', () => {
    expect(targetLevel('depth', obs({ openCount: 0 }))).toBe('OK');
    expect(targetLevel('depth', obs({ openCount: 1 }))).toBe('ALARM');
  });

  it('age is PENDING in the last day before the deadline, ALARM at it', () => {
    expect(targetLevel('age', obs({ oldestAgeMs: 6 * DAY - 1 }))).toBe('OK');
    expect(targetLevel('age', obs({ oldestAgeMs: 6 * DAY }))).toBe('PENDING');
    expect(targetLevel('age', obs({ oldestAgeMs: 7 * DAY }))).toBe('ALARM');
    expect(targetLevel('age', obs({ oldestAgeMs: 2 * HOUR, ageDeadlineMs: 12 * HOUR }))).toBe('PENDING');
  });

  it('rate is PENDING when elevated and ALARM in a wave', () => {
    expect(targetLevel('rate', obs({ rateCount: RULES.ratePending - 1 }))).toBe('OK');
    expect(targetLevel('rate', obs({ rateCount: RULES.ratePending }))).toBe('PENDING');
    expect(targetLevel('rate', obs({ rateCount: RULES.waveMin }))).toBe('ALARM');
  });

  it('rate follows the source’s own thresholds when it has them', () => {
    const rate = { pending: 100, alarm: 400 };
    expect(targetLevel('rate', obs({ rateCount: 60, rate }))).toBe('OK');
    expect(targetLevel('rate', obs({ rateCount: 100, rate }))).toBe('PENDING');
    expect(targetLevel('rate', obs({ rateCount: 400, rate }))).toBe('ALARM');
    expect(classify({ windowCounts: [300], clusterCounts: [{ clusterId: 'gw', count: 300 }] }, rate)?.label).toBe('probable poison');
    expect(classify({ windowCounts: [400], clusterCounts: [{ clusterId: 'gw', count: 400 }] }, rate)?.label).toBe('probable outage');
  });
});

describe('poison or outage', () => {
  const windows = (first: number) => [first, ...Array<number>(11).fill(0)];

  it('a wave with one dominant cluster is a probable outage', () => {
    const c = classify({
      windowCounts: windows(500),
      clusterCounts: [
        { clusterId: 'gw', count: 480 },
        { clusterId: 'x', count: 20 },
      ],
    });
    expect(c).toMatchObject({ label: 'probable outage', hint: 'check the downstream, do not redrive yet', dominantClusterId: 'gw', dominantShare: 0.96 });
  });

  it('a wave of many causes is not called an outage of one downstream', () => {
    const clusterCounts = Array.from({ length: 5 }, (_, i) => ({ clusterId: `c${i}`, count: 20 }));
    expect(classify({ windowCounts: windows(100), clusterCounts })?.label).toBe('wave, mixed causes');
  });

  it('a trickle whose errors say nothing is probable poison, whether they vary or not', () => {
    const trickle = [1, 0, 2, 1, 0, 1, 0, 0, 1, 0, 0, 1];
    expect(
      classify({
        windowCounts: trickle,
        clusterCounts: [
          { clusterId: 'a', count: 3 },
          { clusterId: 'b', count: 2 },
          { clusterId: 'c', count: 2 },
        ],
      })?.label,
    ).toBe('probable poison');
    expect(classify({ windowCounts: trickle, clusterCounts: [{ clusterId: 'a', count: 7 }] })?.label).toBe('probable poison');
  });

  const classes = (transient: number, permanent: number, unknown: number) => ({ transient, permanent, unknown });

  it('mostly transient errors are an outage whatever their number, and its advice never says redrive', () => {
    const one = classify({
      windowCounts: windows(1),
      transientCounts: windows(1),
      clusterCounts: [{ clusterId: 'm', count: 1 }],
      classCounts: classes(1, 0, 0),
    });
    expect(one).toMatchObject({ label: 'outage', hint: HINTS.outage });
    expect(HINTS.outage).toMatch(/^check the downstream/);
    expect(HINTS.outage).not.toMatch(/redrive/i);
    const slow = classify({
      windowCounts: [0, 7, 8],
      transientCounts: [0, 6, 8],
      clusterCounts: [{ clusterId: 'm', count: 15 }],
      classCounts: classes(14, 1, 0),
    });
    expect(slow?.label).toBe('outage');
    // A wave of them too: the errors decide, not the dominant cluster.
    const wave = classify({
      windowCounts: windows(500),
      transientCounts: windows(300),
      clusterCounts: Array.from({ length: 5 }, (_, i) => ({ clusterId: `c${i}`, count: 100 })),
      classCounts: classes(300, 100, 100),
    });
    expect(wave?.label).toBe('outage');
  });

  it('an outage whose transient errors stopped for the quiet windows says when to redrive', () => {
    const quiet = Array<number>(RULES.outageQuietWindows).fill(0);
    const c = classify({
      windowCounts: [...quiet, 9],
      transientCounts: [...quiet, 9],
      clusterCounts: [{ clusterId: 'm', count: 9 }],
      classCounts: classes(9, 0, 0),
    });
    expect(c).toMatchObject({ label: 'outage, errors stopped' });
    expect(c!.hint).toMatch(/healthy.*redrive rate-limited/);
    expect(transientStillArriving([...quiet.slice(1), 1])).toBe(true);
    expect(keptLabel('outage')).toBe('outage, errors stopped');
    expect(keptLabel('poison')).toBe('poison');
    // The volume-only label of before the error classes, kept by a quiet source, says what it is now.
    expect(keptLabel('bad input')).toBe('probable poison');
  });

  it('mostly permanent errors are poison, even in a wave', () => {
    expect(classify({ windowCounts: windows(1), clusterCounts: [{ clusterId: 'p', count: 1 }], classCounts: classes(0, 1, 0) })).toMatchObject({
      label: 'poison',
      hint: HINTS.poison,
    });
    expect(classify({ windowCounts: windows(400), clusterCounts: [{ clusterId: 'p', count: 400 }], classCounts: classes(10, 390, 0) })?.label).toBe('poison');
  });

  it('errors that say neither, or half and half, leave it to the volume', () => {
    const mixed = {
      windowCounts: windows(500),
      clusterCounts: [
        { clusterId: 'gw', count: 480 },
        { clusterId: 'x', count: 20 },
      ],
      classCounts: classes(250, 250, 0),
    };
    expect(classify(mixed)?.label).toBe('probable outage');
    expect(classify({ ...mixed, windowCounts: windows(5) })?.label).toBe('probable poison');
    const unnamed = { windowCounts: windows(5), clusterCounts: [{ clusterId: 'u', count: 10 }] };
    expect(classify({ ...unnamed, transientCounts: windows(4), classCounts: classes(4, 0, 6) })?.label).toBe('probable poison');
  });

  it('when most errors name a cause, the larger of transient and permanent decides', () => {
    const some = { windowCounts: windows(20), transientCounts: windows(9), clusterCounts: [{ clusterId: 'a', count: 20 }] };
    expect(classify({ ...some, classCounts: classes(9, 6, 5) })?.label).toBe('outage');
    expect(classify({ ...some, classCounts: classes(4, 7, 9) })?.label).toBe('poison');
  });

  it('an hour with no arrivals says nothing new', () => {
    expect(classify({ windowCounts: windows(0), clusterCounts: [] })).toBeNull();
  });
});

describe('quarantine alarm', () => {
  it('is ALARM at once while any job is quarantined, OK once the set is empty', () => {
    const key = 'triage:source.orders:triage-quarantine';
    expect(targetLevel('quarantine', obs({ quarantine: { count: 3, key } }))).toBe('ALARM');
    expect(CONFIRM_MS.quarantine).toBe(0);
    expect(targetLevel('quarantine', obs({ quarantine: { count: 0, key } }))).toBe('OK');
    expect(targetLevel('quarantine', obs({}))).toBe('OK');
    expect(describeAlarm('quarantine', obs({ quarantine: { count: 3, key } }))).toEqual({ value: 3, threshold: '> 0 quarantined jobs' });
  });
});
