// Every dead-letter status, for queries over all dead letters in a time range: naming them lets the
// (status, dead_at) and (source_id, status, dead_at) indexes serve the range, one descent per
// status (Postgres 15 has no skip scan).
export const DEAD_LETTER_STATUSES = ['open', 'redriving', 'redriven', 'archived', 'discarded', 'expired'] as const;
