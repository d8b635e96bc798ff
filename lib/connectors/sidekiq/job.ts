// A Sidekiq job as its dead (or retry) set holds it: one JSON text per member, written by Sidekiq's
// job_retry.rb. It becomes a dead letter whose payload is that text byte for byte and whose message
// id is the jid; the redrive writes it back as Sidekiq's "Retry Now" would (./redrive.ts).
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import type { NewDeadLetter } from '@/lib/model/dead-letter';

/** A member of a sorted set read from Redis: its bytes and its score as Redis printed it. */
export interface SetEntry {
  member: Buffer;
  score: string;
}

type Job = Record<string, unknown>;

function parseJob(bytes: Buffer): Job | null {
  try {
    const v: unknown = JSON.parse(bytes.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Job) : null;
  } catch {
    return null;
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
/** Sidekiq's times are epoch seconds as floats (6.x); 7.x writes integer milliseconds. */
function timeOf(v: unknown): Date | null {
  const n = num(v);
  if (n === null || n <= 0) return null;
  return new Date(Math.round(n > 1e11 ? n : n * 1000));
}

/**
 * error_backtrace as a stack: a JSON array of lines in old releases; since 6.0 the array's JSON,
 * zlib-deflated and base64-encoded (JobRetry#compress_backtrace). Null when absent or unreadable.
 */
export function backtraceOf(v: unknown): string | null {
  if (typeof v !== 'string') return linesOf(v);
  const known = v.length <= BACKTRACE_KEY_MAX ? backtraces.get(v) : undefined;
  if (known !== undefined) return known;
  let text: string | null;
  try {
    text = linesOf(JSON.parse(inflateSync(Buffer.from(v, 'base64')).toString('utf8')));
  } catch {
    text = v.length ? v : null;
  }
  if (v.length <= BACKTRACE_KEY_MAX) {
    if (backtraces.size >= BACKTRACES_KEPT) backtraces.clear();
    backtraces.set(v, text);
  }
  return text;
}

function linesOf(lines: unknown): string | null {
  if (!Array.isArray(lines)) return null;
  const text = lines.filter((l): l is string => typeof l === 'string').join('\n');
  return text.length ? text : null;
}

/**
 * Compressed backtraces already read, by their text: the jobs that die of one bug carry the same
 * one byte for byte, and inflating it (a zlib stream set up per call) was most of the time spent
 * mapping a dead job.
 */
const backtraces = new Map<string, string | null>();
const BACKTRACES_KEPT = 1_000;
const BACKTRACE_KEY_MAX = 16 * 1024;

/** The jid, or for a member that is not a job, an id from its bytes (the same member, the same id). */
export function messageIdOf(job: Job | null, member: Buffer): string {
  const jid = job ? str(job.jid) : null;
  return jid && jid.length <= 255 ? jid : `sha256:${createHash('sha256').update(member).digest('hex')}`;
}

/**
 * When this failure happened: the last failure's time (retried_at, or failed_at for the first one),
 * else the set's score. With the jid it identifies the failure: rereading the set finds the same
 * pair, and a job that dies again (after a redrive, which clears both) has a new one.
 */
export function failureTimeOf(job: Job | null, entry: SetEntry): Date {
  return (job && (timeOf(job.retried_at) ?? timeOf(job.failed_at))) ?? new Date(Math.round(Number(entry.score) * 1000));
}

/** Header: whether Triage took the job out of its set after import (else it left it for Sidekiq's Web UI). */
export const REMOVED_HEADER = 'sidekiq.remove_after_import';

/**
 * The dead letter of one member of the dead set (`set` 'dead') or the retry set; `removed`: Triage
 * takes it out of the set once recorded. Generation and redrive count are the import's.
 */
export function deadLetterOfEntry(entry: SetEntry, set: 'dead' | 'retry', removed: boolean): NewDeadLetter {
  const job = parseJob(entry.member);
  const at = failureTimeOf(job, entry);
  const errorType = job ? str(job.error_class) : null;
  const errorMessage = job ? str(job.error_message) : null;
  const retryCount = job ? num(job.retry_count) : null;
  const queue = job ? str(job.queue) : null;
  const enqueuedAt = job ? (timeOf(job.enqueued_at) ?? timeOf(job.created_at)) : null;
  // Retries used up (or retry: 0) is Sidekiq's "max receives"; a job killed by hand (the Web UI's
  // Kill) carries no error of its own. Still retrying: past the count the source set.
  const reason = set === 'retry' || errorType ? 'MaxReceives' : 'Manual';
  const history =
    errorType || errorMessage
      ? [{ reason, errorType, errorMessage, count: 1, firstAt: (timeOf(job?.failed_at) ?? at).toISOString(), lastAt: at.toISOString() }]
      : [];
  return {
    messageId: messageIdOf(job, entry.member),
    payload: entry.member,
    contentType: job ? 'application/json' : 'application/octet-stream',
    headers: {
      'sidekiq.set': set,
      'sidekiq.score': entry.score,
      [REMOVED_HEADER]: removed,
      ...(job
        ? {
            'sidekiq.class': job.class ?? null,
            'sidekiq.queue': queue,
            'sidekiq.jid': job.jid ?? null,
            'sidekiq.retry': job.retry ?? null,
            'sidekiq.retry_count': retryCount,
            'sidekiq.failed_at': job.failed_at ?? null,
            ...(job.retried_at !== undefined ? { 'sidekiq.retried_at': job.retried_at } : {}),
            'sidekiq.enqueued_at': job.enqueued_at ?? null,
            'sidekiq.created_at': job.created_at ?? null,
          }
        : {}),
    },
    reason,
    errorType,
    errorMessage,
    errorStack: job ? backtraceOf(job.error_backtrace) : null,
    // retry_count is 0 after the first failure: the runs that failed are one more.
    receiveCount: retryCount === null ? 1 : retryCount + 1,
    enqueuedAt,
    firstFailedAt: timeOf(job?.failed_at) ?? at,
    lastFailedAt: at,
    deadAt: at,
    consumerName: job ? str(job.class) : null,
    correlationId: job ? (str(job.bid) ?? null) : null,
    failureHistory: history,
  };
}

/**
 * The top-level members of a JSON object text, each value as its exact source text (numbers past
 * 2^53, float spellings and key order survive a rewrite that keeps them). Null when it is not one.
 */
export function topLevelMembers(text: string): [key: string, raw: string][] | null {
  try {
    const v: unknown = JSON.parse(text);
    if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  } catch {
    return null;
  }
  const out: [string, string][] = [];
  let i = text.indexOf('{') + 1;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const stringEnd = (from: number) => {
    let j = from + 1;
    while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    return j + 1;
  };
  for (;;) {
    ws();
    if (text[i] === '}') return out;
    const keyEnd = stringEnd(i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = keyEnd;
    ws();
    i++; // ':'
    ws();
    const start = i;
    let depth = 0;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') i = stringEnd(i);
      else if (c === '{' || c === '[') {
        depth++;
        i++;
      } else if (c === '}' || c === ']') {
        if (depth === 0) break;
        depth--;
        i++;
      } else if (c === ',' && depth === 0) break;
      else i++;
    }
    out.push([key, text.slice(start, i).trimEnd()]);
    if (text[i] === ',') i++;
  }
}

/** The fields Sidekiq's retry machinery wrote about the failure: a redriven job starts without them. */
export const FAILURE_FIELDS = new Set(['error_message', 'error_class', 'error_backtrace', 'error_details', 'failed_at', 'retried_at', 'retry_count']);
/** Triage's count of its redrives of the job, in the job hash. */
export const REDRIVE_COUNT_FIELD = 'triage_redrive_count';

/**
 * The job as a redrive pushes it: every field it had, byte for byte, but the failure's (so Sidekiq
 * gives it a fresh retry count, and its next death a new failed_at), enqueued now, with Triage's
 * redrive count. Null when the payload is not a JSON object (Sidekiq could not read it).
 */
export function redrivenJob(payload: Uint8Array, redriveCount: number, now: Date): string | null {
  const members = topLevelMembers(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8'));
  if (!members) return null;
  const kept = members.filter(([k]) => !FAILURE_FIELDS.has(k) && k !== REDRIVE_COUNT_FIELD && k !== 'enqueued_at');
  const added: [string, string][] = [
    ['enqueued_at', String(now.getTime() / 1000)],
    [REDRIVE_COUNT_FIELD, String(redriveCount)],
  ];
  return `{${[...kept, ...added].map(([k, raw]) => `${JSON.stringify(k)}:${raw}`).join(',')}}`;
}
