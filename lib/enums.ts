// The enumerations the API, the pages and the queries share, declared once: each is the Prisma
// schema's enum (prisma/schema.prisma) as the array that z.enum, SQL `= ANY(…)` and a <select> take.
// Import them from here; never spell the values out again (docs/style.md "Views").
import * as Prisma from '@/generated/prisma/enums';

type Values<E extends Record<string, string>> = readonly [E[keyof E], ...E[keyof E][]];
const values = <E extends Record<string, string>>(e: E) => Object.freeze(Object.values(e)) as unknown as Values<E>;

/** In the schema's order. Naming them all lets the (status, dead_at) indexes serve a time range, one descent per status. */
export const DEAD_LETTER_STATUSES = values(Prisma.DeadLetterStatus);
export type DeadLetterStatus = (typeof DEAD_LETTER_STATUSES)[number];

export const DEAD_LETTER_REASONS = values(Prisma.DeadLetterReason);
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

export const REDRIVE_TASK_STATUSES = values(Prisma.RedriveTaskStatus);
export type RedriveTaskStatus = (typeof REDRIVE_TASK_STATUSES)[number];
/** A task in one of these holds its source: one active task per source. */
export const ACTIVE_REDRIVE_STATUSES = ['pending_approval', 'queued', 'running', 'paused'] as const satisfies readonly RedriveTaskStatus[];

export const ALARM_KINDS = values(Prisma.AlarmKind);
export const ALARM_LEVELS = values(Prisma.AlarmStateValue);

/** Kinds of redrive rule (a string column: rules of a kind this code no longer has are refused on read). */
export const RULE_KINDS = ['after_wave', 'on_resolved'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];
