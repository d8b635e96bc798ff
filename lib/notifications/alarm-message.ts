// The Slack-compatible body of an alarm notification: `text` for any receiver (and Slack's
// notification preview), `blocks` for Slack's richer layout.
import { formatDuration } from '@/lib/duration';
import type { AlarmKind, AlarmLevel } from '@/lib/model/alarm-rules';

export interface AlarmTransition {
  sourceId: string;
  sourceName: string;
  teamId: string;
  kind: AlarmKind;
  from: AlarmLevel;
  to: AlarmLevel;
  at: Date;
  label: string | null;
  hint: string | null;
  value: number;
  ageDeadlineSeconds: number;
  /** Connector alarms: the import's last error and failed attempts in a row. */
  lastError?: string | null;
  failures?: number;
  /** Quarantine alarms: the Redis key of the quarantined jobs. */
  quarantineKey?: string;
  /** Redrive alarms: why the task paused. */
  taskReason?: string | null;
  /** Consumer alarms: the source queue as last read, and how old its oldest message may be. */
  sourceQueue?: { queue: string | null; consumers: number | null; inFlight: number | null; oldestAgeSeconds: number | null; maxAgeSeconds: number };
}

export interface SlackMessage {
  text: string;
  blocks?: unknown[];
}

const ICON: Record<AlarmLevel, string> = { OK: ':white_check_mark:', PENDING: ':warning:', ALARM: ':rotating_light:' };

function measure(t: AlarmTransition): string {
  switch (t.kind) {
    case 'depth':
      return `${t.value} open dead letter${t.value === 1 ? '' : 's'}`;
    case 'age':
      return `oldest open dead letter ${formatDuration(t.value)} old (deadline ${formatDuration(t.ageDeadlineSeconds)})`;
    case 'rate':
      return `${t.value} dead letter${t.value === 1 ? '' : 's'} in the last 5 min`;
    case 'connector':
      if (t.to === 'OK') return 'the connector reaches its broker again and imports';
      return `broker unreachable${t.value > 0 ? ` for ${formatDuration(t.value)}` : ''} (${t.failures ?? 0} failed attempt${t.failures === 1 ? '' : 's'} in a row)${t.lastError ? `: ${t.lastError}` : ''}`;
    case 'quarantine':
      if (t.to === 'OK') return 'the quarantine of stray jobs is empty again';
      return `${t.value} failed job${t.value === 1 ? '' : 's'} Postgres refused to store, quarantined in Redis${t.quarantineKey ? ` (${t.quarantineKey})` : ''}`;
    case 'redrive':
      if (t.to === 'OK') return 'no redrive task of this source is paused any more';
      return `a redrive task paused for ${formatDuration(t.value)}, holding its dead letters${t.taskReason ? `: ${t.taskReason}` : ''}`;
    case 'consumer': {
      const q = t.sourceQueue;
      const name = q?.queue ?? 'the source queue';
      if (t.to === 'OK') return `${name} is consumed again (${t.value} message${t.value === 1 ? '' : 's'} waiting)`;
      if (t.label === 'source queue stalled' && q?.oldestAgeSeconds != null) {
        return `the oldest message of ${name} waits ${formatDuration(q.oldestAgeSeconds)} (limit ${formatDuration(q.maxAgeSeconds)}), ${t.value} waiting`;
      }
      const who = q?.consumers == null ? 'none in flight' : `${q.consumers} consumers`;
      return `nothing consumes ${name}: ${t.value} message${t.value === 1 ? '' : 's'} waiting, ${who}`;
    }
  }
}

export function alarmMessage(t: AlarmTransition, appUrl: string): SlackMessage {
  const link = `${appUrl.replace(/\/$/, '')}/sources/${encodeURIComponent(t.sourceName)}`;
  const advice = t.to !== 'OK' && t.label ? ` · ${t.label}: ${t.hint}` : '';
  const text = `[${t.to}] ${t.sourceName} ${t.kind} alarm ${t.from} → ${t.to}: ${measure(t)}${advice}`;
  return {
    text,
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `${ICON[t.to]} *<${link}|${t.sourceName}>* ${t.kind} alarm *${t.from} → ${t.to}*\n${measure(t)}${advice ? `\n*${t.label}*: ${t.hint}` : ''}`,
        },
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Triage · ${t.at.toISOString()}` }] },
    ],
  };
}
