// The traps of an SQS dead-letter setup, from the attributes "test connection" reads (GetQueueAttributes
// of the DLQ and of each source queue). Pure: lib/connectors/traps.ts has the shape.
import { duration, receiveLimitOne, retryLoopNearRetention, type Trap } from '../traps';
import { isFifoQueue, queueNameOf } from './client';
import type { SqsConfig } from './config';

export interface SqsQueueSettings {
  name: string;
  /** MessageRetentionPeriod, seconds. */
  retentionSeconds: number;
  /** FifoQueue (or a name ending in .fifo). */
  fifo: boolean;
}

export interface SqsSourceQueueSettings extends SqsQueueSettings {
  /** VisibilityTimeout, seconds. */
  visibilityTimeoutSeconds: number;
  /** maxReceiveCount of its RedrivePolicy; null without one. */
  maxReceiveCount: number | null;
}

/** maxReceiveCount of a RedrivePolicy attribute (SQS gives it as a number or a string), or null. */
export function maxReceiveCountOf(redrivePolicy: string | undefined | null): number | null {
  if (!redrivePolicy) return null;
  try {
    const n = Number((JSON.parse(redrivePolicy) as { maxReceiveCount?: unknown }).maxReceiveCount);
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

/**
 * The retention trap (seed 004 §5): a message moved to a standard DLQ keeps its original send time,
 * so a DLQ that keeps messages no longer than its source deletes dead letters as soon as they
 * arrive, or soon after. A FIFO DLQ restarts the clock on the move, so it does not apply there.
 */
export function dlqRetentionTrap(dlq: SqsQueueSettings, source: SqsQueueSettings): Trap | null {
  if (dlq.fifo || dlq.retentionSeconds > source.retentionSeconds) return null;
  return {
    code: 'dlq_retention_not_longer',
    severity: 'warning',
    message:
      `The dead-letter queue "${dlq.name}" keeps messages ${duration(dlq.retentionSeconds)}, not longer than its source queue "${source.name}" (${duration(source.retentionSeconds)}). ` +
      `SQS counts a dead letter's retention from when it was first sent, so it can delete dead letters before Triage imports them.`,
    fix: `Set the DLQ's MessageRetentionPeriod longer than the source queue's (up to 14 d).`,
  };
}

/** A FIFO source: moving one message out breaks its group's order (seed 004 §10). */
export function fifoOrderTrap(where: string): Trap {
  return {
    code: 'fifo_order',
    severity: 'warning',
    message:
      `${where} is a FIFO queue: a message moved to the dead-letter queue leaves a hole in its message group, and the rest of the group is processed without it. ` +
      `A redrive sends it back behind messages that came after it.`,
    fix: 'Where the order must hold exactly, treat each dead letter as a correctness incident: reconcile what the group did without it before you redrive (AWS advises against a DLQ on such a queue).',
  };
}

export function sqsTraps(dlq: SqsQueueSettings, sources: SqsSourceQueueSettings[]): Trap[] {
  const traps: (Trap | null)[] = [];
  for (const s of sources) {
    traps.push(
      receiveLimitOne(
        `The redrive policy of "${s.name}"`,
        'maxReceiveCount',
        s.maxReceiveCount,
        `Set maxReceiveCount in the RedrivePolicy of "${s.name}" to 3 or more, so a passing failure is retried.`,
      ),
      dlqRetentionTrap(dlq, s),
      s.maxReceiveCount === null
        ? null
        : retryLoopNearRetention(
            `"${s.name}"`,
            { limitSetting: 'maxReceiveCount', limit: s.maxReceiveCount, waitSetting: 'VisibilityTimeout', waitSeconds: s.visibilityTimeoutSeconds },
            { setting: 'MessageRetentionPeriod', seconds: s.retentionSeconds },
            `Lower maxReceiveCount or VisibilityTimeout of "${s.name}", or raise its MessageRetentionPeriod (up to 14 d).`,
          ),
      s.fifo ? fifoOrderTrap(`"${s.name}"`) : null,
    );
  }
  // The DLQ of a FIFO queue is FIFO too (SQS refuses a mix): without a known source queue, say it from the DLQ.
  if (dlq.fifo && !sources.some((s) => s.fifo)) traps.push(fifoOrderTrap(`The source queue of "${dlq.name}"`));
  return traps.filter((t): t is Trap => t !== null);
}

/**
 * What to say before a redrive of an SQS source, from its settings alone (no call to SQS): a FIFO
 * source's dead letters go back behind the messages of their group that were processed without them.
 * The DLQ of a FIFO queue is FIFO, so its URL says it when the source queue is not set.
 */
export function sqsRedriveTraps(config: Pick<SqsConfig, 'queueUrl' | 'sourceQueueUrl'>): Trap[] {
  if (config.sourceQueueUrl) return isFifoQueue(config.sourceQueueUrl) ? [fifoOrderTrap(`"${queueNameOf(config.sourceQueueUrl)}"`)] : [];
  return isFifoQueue(config.queueUrl) ? [fifoOrderTrap(`The source queue of "${queueNameOf(config.queueUrl)}"`)] : [];
}
