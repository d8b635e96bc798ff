// The known traps of a broker's dead-letter settings, one shape for every connector: each broker's
// traps.ts is a pure function from the settings its probe read to a list of these, shown under
// "test connection" and on the source page (lib/connectors/trap-check.ts). The words follow the
// reference texts (seed 000 "Pitfalls", seed 004 §5 and §11): what goes wrong, then what to change,
// naming the setting as the broker names it.
import { z } from 'zod';
import { formatDuration } from '@/lib/duration';

export const TRAP_CODES = [
  'receive_limit_one',
  'dlq_retention_not_longer',
  'retry_loop_near_retention',
  'at_most_once_dead_lettering',
  'fifo_order',
  'failed_jobs_removed',
  'settings_not_readable',
  'message_ttl',
  'no_error_text',
] as const;
export type TrapCode = (typeof TRAP_CODES)[number];

export const TRAP_SEVERITIES = ['info', 'warning'] as const;

export const TrapView = z
  .object({
    code: z.enum(TRAP_CODES),
    severity: z.enum(TRAP_SEVERITIES).describe('warning: the settings will lose or misplace messages; info: something Triage could not check'),
    message: z.string().describe('What goes wrong, naming the queue and the setting as the broker names them'),
    fix: z.string().describe('What to change'),
  })
  .describe("A known trap of the broker's dead-letter settings");
export type Trap = z.infer<typeof TrapView>;

/**
 * How close to the retention the retry loop (receive limit × redelivery wait) may come before it is
 * a trap: past half of it, dead letters arrive with little time left, and a slower consumer tips
 * them over (the same share as a built-in source's policy, lib/sources/update-policy.ts).
 */
export const NEAR_RETENTION_SHARE = 0.5;

export const duration = (seconds: number) => formatDuration(seconds);

/** One line for places that show text only (the probe's `warnings`, logs). */
export const trapLine = (t: Trap) => `${t.message} ${t.fix}`;

/** A receive limit of exactly 1 (seed 000, "Pitfalls"). */
export function receiveLimitOne(where: string, setting: string, limit: number | null | undefined, fix: string): Trap | null {
  if (limit !== 1) return null;
  return {
    code: 'receive_limit_one',
    severity: 'warning',
    message: `${where} has ${setting} 1: one network blip or one redelivery after a consumer restart sends a good message to the dead-letter queue.`,
    fix,
  };
}

/**
 * The retry loop against the retention (seed 004 §11): when receive limit × redelivery wait comes
 * near the retention, messages expire before they are parked, and the message and the evidence are
 * both gone. Null when either is unlimited (0 or less).
 */
export function retryLoopNearRetention(
  where: string,
  loop: { limitSetting: string; limit: number; waitSetting: string; waitSeconds: number },
  retention: { setting: string; seconds: number },
  fix: string,
): Trap | null {
  if (loop.limit <= 0 || loop.waitSeconds <= 0 || retention.seconds <= 0) return null;
  const loopSeconds = loop.limit * loop.waitSeconds;
  if (loopSeconds < retention.seconds * NEAR_RETENTION_SHARE) return null;
  const reaches = loopSeconds >= retention.seconds ? 'reaches' : 'comes near';
  return {
    code: 'retry_loop_near_retention',
    severity: 'warning',
    message:
      `${where}: ${loop.limitSetting} ${loop.limit} × ${loop.waitSetting} ${duration(loop.waitSeconds)} = ${duration(loopSeconds)} ${reaches} its ${retention.setting} (${duration(retention.seconds)}). ` +
      `A failing message can expire before it is dead-lettered, and the message and the evidence are both lost.`,
    fix,
  };
}
