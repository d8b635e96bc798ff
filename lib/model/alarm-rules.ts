// The alarm rules, pure: what each alarm wants to be given what was observed, how the state moves,
// and the runbook's first branch, poison or outage (seed 004 §9). What the errors say decides first,
// from the first dead letter: mostly transient errors are an outage whatever their number, more
// permanent than transient ones poison. Only when most errors name no cause does volume decide ("how
// many, and how fast?"): a wave with one dominant cause is a probable outage, a trickle probable poison.
import { MINUTE, HOUR } from '@/lib/clock';
import { formatDuration } from '@/lib/duration';

import type { ALARM_KINDS, ALARM_LEVELS } from '@/lib/enums';
import type { ErrorClass } from '@/lib/model/error-classes';

export type AlarmKind = (typeof ALARM_KINDS)[number];
export type AlarmLevel = (typeof ALARM_LEVELS)[number];
/**
 * The alarms of every source; connector sources (RabbitMQ, BullMQ…) also have `connector`, and a
 * built-in source has `quarantine` once its queue quarantined a stray job (lib/runtime/quarantine.ts).
 */
export const SOURCE_ALARM_KINDS: readonly AlarmKind[] = ['depth', 'age', 'rate'];

export const RULES = {
  /** Depth > 0 must hold this long before PENDING becomes ALARM (a blip redriven at once pages nobody). */
  depthConfirmMs: MINUTE,
  /** A source queue without a consumer must stay so this long before ALARM (a rolling deploy restarts consumers). */
  consumerConfirmMs: MINUTE,
  /** The age alarm is PENDING this long before the deadline. */
  nearDeadlineMs: 24 * HOUR,
  /** The rate alarm counts dead letters over this window. */
  rateWindowMs: 5 * MINUTE,
  /** Default dead letters in the rate window that make the rate alarm PENDING (per source: alarm_rate_pending). */
  ratePending: 10,
  /** Default dead letters in one rate window that make a wave, ALARM (per source: alarm_rate_alarm). */
  waveMin: 50,
  /** Classification looks back this far, in rate windows. */
  classifyWindowMs: HOUR,
  /** Share of the classify window's dead letters that makes one cluster dominant. */
  dominantShare: 0.8,
  /**
   * Rate windows without a transient error before an outage's advice speaks of redriving: a slow
   * outage may go a window without a dead letter and still be on.
   */
  outageQuietWindows: 2,
} as const;

export type AlarmLabel =
  | 'outage'
  | 'outage, errors stopped'
  | 'poison'
  | 'probable outage'
  | 'wave, mixed causes'
  | 'probable poison'
  | 'broker unreachable'
  | 'jobs quarantined'
  | 'redrive paused'
  | 'nothing consumes'
  | 'source queue stalled';

export const HINTS: Record<AlarmLabel, string> = {
  // Never the word of replaying: while the errors keep arriving, the dead letters stay parked.
  outage:
    'check the downstream first: the errors say it is failing (timeouts, 5xx, refused connections, throttling); stop the bleeding (pause the consumers or open a circuit breaker, so messages wait on the main queue instead of failing into this one); capture evidence now (sample bodies, the graphs); leave the dead letters parked while these errors keep arriving',
  'outage, errors stopped':
    'the transient errors stopped: confirm the downstream is healthy on live traffic and drain the main queue first, then redrive rate-limited well below its capacity and watch its latency; what fails again is poison',
  poison:
    'the errors say the messages are bad (parse, schema, validation, not found, constraint): sample the bodies, fix the producer or the consumer and deploy, then redrive; until then they fail again',
  'probable outage': 'check the downstream, do not redrive yet',
  'wave, mixed causes': 'many causes at once: look for a shared dependency or a recent deploy before redriving',
  'probable poison': 'few, and the errors name no known cause: sample the bodies and read the errors, fix the producer or the consumer, then redrive',
  'broker unreachable':
    'nothing is imported meanwhile (messages wait on the broker); the connector retries with backoff: check the broker, the credentials and the network',
  'redrive paused':
    'a redrive task of this source is paused and holds its dead letters (they stay on the age clock): read why on the task, resume it after the fix, or cancel it so they can be decided otherwise',
  // Dead letters cannot show this: a consumer that does not run fails nothing.
  'nothing consumes': 'start the consumer, or check its circuit breaker; dead letters cannot show this (nothing fails, so nothing is dead-lettered)',
  'source queue stalled':
    'its oldest message waits past the limit: the consumers are stuck or too slow (a message blocking the head, a breaker half-open, too few of them); dead letters cannot show this',
  'jobs quarantined':
    'failed jobs of this source queue that Postgres refused to store (a value it cannot hold, e.g. a message id too long to index): they are not dead letters, and they are kept in Redis, not lost. List them with ZRANGE on the quarantine key, read each job hash, record or drop them, then remove them from the set: the alarm clears when it is empty',
};

/** A source's rate thresholds: dead letters per rate window for PENDING, and for ALARM (a wave). */
export interface RateThresholds {
  pending: number;
  alarm: number;
}

export const DEFAULT_RATE: RateThresholds = { pending: RULES.ratePending, alarm: RULES.waveMin };

export type ClassCounts = Record<ErrorClass, number>;

export interface RecentArrivals {
  /** Dead letters per rate window over the classify window, newest first. */
  windowCounts: number[];
  /** Dead letters per cluster over the classify window. */
  clusterCounts: { clusterId: string | null; count: number }[];
  /** Dead letters per error class over the classify window; absent: all unknown. */
  classCounts?: ClassCounts;
  /** Transient dead letters per rate window, newest first; absent: none. */
  transientCounts?: number[];
}

export interface Classification {
  label: AlarmLabel;
  hint: string;
  dominantClusterId: string | null;
  dominantShare: number;
  classCounts: ClassCounts;
}

/** Whether transient errors arrived in the latest rate windows (RULES.outageQuietWindows). */
export const transientStillArriving = (transientCounts: readonly number[] = []) => transientCounts.slice(0, RULES.outageQuietWindows).some((n) => n > 0);

/**
 * Poison or outage, from the last hour's arrivals: when at least half of their errors name a cause,
 * the larger of transient and permanent decides (so mostly transient is an outage whatever the
 * number); else, or on a tie, their volume. Null when nothing arrived in that hour: the backlog's
 * cause has not changed, so the caller keeps the label it had (keptLabel).
 */
export function classify(recent: RecentArrivals, rate: RateThresholds = DEFAULT_RATE): Classification | null {
  const total = recent.clusterCounts.reduce((n, c) => n + c.count, 0);
  if (total === 0) return null;
  const top = recent.clusterCounts.reduce((a, c) => (c.count > a.count ? c : a));
  const share = top.count / total;
  const classCounts = recent.classCounts ?? { transient: 0, permanent: 0, unknown: total };
  let label: AlarmLabel;
  const { transient, permanent } = classCounts;
  const named = (transient + permanent) * 2 >= total && transient !== permanent;
  if (named && transient > permanent) label = transientStillArriving(recent.transientCounts) ? 'outage' : 'outage, errors stopped';
  else if (named) label = 'poison';
  else {
    const wave = Math.max(0, ...recent.windowCounts) >= rate.alarm;
    label = wave ? (share >= RULES.dominantShare ? 'probable outage' : 'wave, mixed causes') : 'probable poison';
  }
  return { label, hint: HINTS[label], dominantClusterId: top.clusterId, dominantShare: share, classCounts };
}

/**
 * The label an alarm keeps when nothing arrived this hour: an outage's errors have stopped arriving;
 * 'bad input', the volume-only label of before the error classes, is now 'probable poison'.
 */
export function keptLabel(label: string | null): string | null {
  return label === 'outage' ? 'outage, errors stopped' : label === 'bad input' ? 'probable poison' : label;
}

export interface SourceObservation {
  openCount: number;
  /** Age of the oldest open dead letter since dead-lettered, ms; null when none is open. */
  oldestAgeMs: number | null;
  ageDeadlineMs: number;
  /** Dead letters in the latest rate window. */
  rateCount: number;
  /** The source's rate thresholds; the defaults when absent. */
  rate?: RateThresholds;
  /** The rate window, ms (ALARM_RATE_WINDOW_SECONDS); RULES.rateWindowMs when absent. */
  rateWindowMs?: number;
  /** Connector sources: their import's health (connector_health). */
  connector?: ConnectorObservation;
  /** Built-in sources: the stray jobs their queue quarantined, and the Redis key that holds them. */
  quarantine?: { count: number; key: string };
  /** Connector sources: the last fresh reading of their source queue, and how old its oldest message may be. */
  sourceQueue?: SourceQueueObservation;
  /** The source's paused redrive task (the longest paused), and how long it may stay so. */
  pausedTask?: { taskId: string; pausedForMs: number; alarmAfterMs: number; reason: string | null };
}

export interface SourceQueueObservation {
  queue: string;
  depth: number;
  inFlight: number | null;
  consumers: number | null;
  /** Null when none waits or the broker does not tell. */
  oldestAgeMs: number | null;
  /** SOURCE_QUEUE_MAX_AGE_SECONDS, ms. */
  maxAgeMs: number;
}

/**
 * Messages wait and nothing consumes them: no consumer attached, or, where the broker does not count
 * consumers (SQS), none of them in flight (a receiving consumer holds what it received).
 */
export function noConsumerSeen(q: { depth: number; inFlight: number | null; consumers: number | null }): boolean {
  if (q.depth <= 0) return false;
  return q.consumers === null ? q.inFlight === 0 : q.consumers === 0;
}

/** What is wrong with a source queue, if anything: nothing consumes it, or its oldest message waits too long. */
export function sourceQueueProblem(q: SourceQueueObservation): 'nothing consumes' | 'source queue stalled' | null {
  if (noConsumerSeen(q)) return 'nothing consumes';
  if (q.oldestAgeMs !== null && q.oldestAgeMs > q.maxAgeMs) return 'source queue stalled';
  return null;
}

export interface ConnectorObservation {
  /** Failed attempts in a row since the import last succeeded; 0 while it works. */
  failures: number;
  /** How long the import has not succeeded while failing, ms (0 when it works). */
  downForMs: number;
  /** How long it may fail before the alarm is raised (CONNECTOR_ALARM_AFTER_SECONDS). */
  alarmAfterMs: number;
  lastError: string | null;
  /** A paused import fails nothing: no alarm. */
  paused: boolean;
}

/** The level each alarm would have if it moved at once. */
export function targetLevel(kind: AlarmKind, o: SourceObservation): AlarmLevel {
  switch (kind) {
    case 'depth':
      return o.openCount > 0 ? 'ALARM' : 'OK';
    case 'age':
      if (o.oldestAgeMs === null) return 'OK';
      if (o.oldestAgeMs >= o.ageDeadlineMs) return 'ALARM';
      return o.oldestAgeMs >= o.ageDeadlineMs - RULES.nearDeadlineMs ? 'PENDING' : 'OK';
    case 'rate': {
      const rate = o.rate ?? DEFAULT_RATE;
      if (o.rateCount >= rate.alarm) return 'ALARM';
      return o.rateCount >= rate.pending ? 'PENDING' : 'OK';
    }
    case 'connector': {
      const c = o.connector;
      if (!c || c.paused || c.failures === 0) return 'OK';
      return c.downForMs >= c.alarmAfterMs ? 'ALARM' : 'PENDING';
    }
    case 'quarantine':
      // Nothing clears itself: a quarantined job waits for an operator, so it alarms at once.
      return (o.quarantine?.count ?? 0) > 0 ? 'ALARM' : 'OK';
    case 'redrive':
      if (!o.pausedTask) return 'OK';
      return o.pausedTask.pausedForMs >= o.pausedTask.alarmAfterMs ? 'ALARM' : 'PENDING';
    case 'consumer':
      return o.sourceQueue && sourceQueueProblem(o.sourceQueue) ? 'ALARM' : 'OK';
  }
}

/**
 * How long a connector has been failing: since its last success when it had one, and at least
 * since the alarm turned PENDING (a connector that never connected has no success to count from).
 */
export function connectorDownForMs(now: Date, failures: number, lastSuccessAt: Date | null, pendingSince: Date | null): number {
  if (failures === 0) return 0;
  const since = [lastSuccessAt, pendingSince].filter((d): d is Date => d !== null).map((d) => d.getTime());
  return since.length ? Math.max(0, now.getTime() - Math.min(...since)) : 0;
}

/** How long ALARM must be wanted, in PENDING, before it is raised. */
export const CONFIRM_MS: Record<AlarmKind, number> = {
  depth: RULES.depthConfirmMs,
  age: 0,
  rate: 0,
  connector: 0,
  quarantine: 0,
  redrive: 0,
  consumer: RULES.consumerConfirmMs,
};

export interface AlarmPosition {
  state: AlarmLevel;
  since: Date;
}

/** OK / PENDING / ALARM: a wanted ALARM passes through PENDING until it held for `confirmMs`. */
export function nextState(prev: AlarmPosition | undefined, target: AlarmLevel, now: Date, confirmMs: number): AlarmPosition {
  const from = prev?.state ?? 'OK';
  let to: AlarmLevel = target;
  if (target === 'ALARM' && confirmMs > 0 && from !== 'ALARM') {
    const heldMs = from === 'PENDING' && prev ? now.getTime() - prev.since.getTime() : 0;
    to = heldMs >= confirmMs ? 'ALARM' : 'PENDING';
  }
  return to === from && prev ? prev : { state: to, since: now };
}

/** The numbers behind an alarm's level (the age in seconds), for its detail and its notification. */
export function describe(kind: AlarmKind, o: SourceObservation): { value: number; threshold: string } {
  switch (kind) {
    case 'depth':
      return { value: o.openCount, threshold: '> 0 open' };
    case 'age':
      return { value: Math.round((o.oldestAgeMs ?? 0) / 1000), threshold: `deadline ${formatDuration(o.ageDeadlineMs / 1000)}` };
    case 'rate': {
      const w = o.rateWindowMs ?? RULES.rateWindowMs;
      const span = w % MINUTE === 0 ? `${w / MINUTE} min` : `${Math.round(w / 1000)} s`;
      return { value: o.rateCount, threshold: `${(o.rate ?? DEFAULT_RATE).pending} / ${(o.rate ?? DEFAULT_RATE).alarm} in ${span}` };
    }
    case 'connector':
      return {
        value: Math.round((o.connector?.downForMs ?? 0) / 1000),
        threshold: `unreachable for ${formatDuration((o.connector?.alarmAfterMs ?? 0) / 1000)}`,
      };
    case 'quarantine':
      return { value: o.quarantine?.count ?? 0, threshold: '> 0 quarantined jobs' };
    case 'redrive':
      return {
        value: Math.round((o.pausedTask?.pausedForMs ?? 0) / 1000),
        threshold: `paused for ${formatDuration((o.pausedTask?.alarmAfterMs ?? 0) / 1000)}`,
      };
    case 'consumer':
      return {
        value: o.sourceQueue?.depth ?? 0,
        threshold: `messages and no consumer, or the oldest over ${formatDuration((o.sourceQueue?.maxAgeMs ?? 0) / 1000)}`,
      };
  }
}
