// /sla — the team lead's home: age deadlines per source, breaches coming, expiries ahead
import Link from 'next/link';
import { can } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { formatDuration } from '@/lib/duration';
import { getSlaBoard } from '@/lib/sla/sla-board';
import { Sparkline } from '@/components/charts/sparkline';
import { SourceQueueFigures } from '@/components/source-queue';
import styles from './sla.module.css';
import { OnHoldClusters } from './on-hold';

const list = (source: string) => `/dead-letters?source=${encodeURIComponent(source)}&status=open`;
const age = (s: number | null) => (s === null ? '—' : formatDuration(s));

function Count({ n, tone, href }: { n: number; tone: 'warn' | 'bad'; href: string }) {
  return n > 0 ? (
    <Link href={href} className={`badge ${tone}`}>
      {n}
    </Link>
  ) : (
    <span className="muted">0</span>
  );
}

export default async function SlaPage({ searchParams }: { searchParams: Promise<{ trend?: string }> }) {
  const actor = await pageActor('deadletters.read');
  const trendDays = (await searchParams).trend === '30' ? 30 : 7;
  const rows = await getSlaBoard(actor, { trendDays });
  const now = Date.now();
  const expiring = rows.filter((r) => r.expiringSoon > 0);
  return (
    <>
      <h1>SLA board</h1>
      <p className="muted">
        Deadline: time to decide a dead letter once it is dead-lettered. Expiry follows the source&apos;s retention on the stricter clock (dead-letter time or
        original enqueue time). <Link href="/alarms">Alarms</Link>
        {can(actor.role, 'sources.policy') ? (
          <>
            {' · '}
            <Link href="/settings/webhooks">Team webhooks</Link>
          </>
        ) : null}
      </p>
      {expiring.length > 0 ? (
        <div className={`card ${styles.warning}`} role="alert" data-testid="expiry-warning">
          {expiring.map((r) => (
            <div key={r.source.id}>
              <strong>{r.source.name}</strong>: {r.expiringSoon} open dead letter{r.expiringSoon === 1 ? '' : 's'} expire within 3 days
              {r.nextExpiryAt ? <> (the first in {formatDuration((r.nextExpiryAt.getTime() - now) / 1000)})</> : null}. Decide them, or lengthen the retention
              on <Link href={`/sources/${encodeURIComponent(r.source.name)}`}>the source&apos;s policy</Link>.
            </div>
          ))}
        </div>
      ) : null}
      <table data-testid="sla-board" className={styles.board}>
        <thead>
          <tr>
            <th>Source</th>
            <th>Open</th>
            <th title="since dead-lettered">Oldest age</th>
            <th title="since first enqueued: the SQS standard-queue clock">Oldest since enqueued</th>
            <th title="connector sources: the queue the consumer reads, beside its DLQ; an empty DLQ proves nothing when nothing consumes it">Source queue</th>
            <th>Deadline</th>
            <th title="open dead letters with less than 24 h left before the deadline">Near deadline</th>
            <th>Breached</th>
            <th title="open dead letters whose retention runs out before their deadline">Expire undecided</th>
            <th>
              Open, last{' '}
              {trendDays === 7 ? (
                <>
                  7 d · <Link href="/sla?trend=30">30 d</Link>
                </>
              ) : (
                <>
                  <Link href="/sla">7 d</Link> · 30 d
                </>
              )}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const raised = r.alarms.filter((a) => a.state !== 'OK');
            return (
              <tr key={r.source.id} data-source={r.source.name}>
                <td>
                  <Link href={`/sources/${encodeURIComponent(r.source.name)}`}>{r.source.name}</Link> <span className="muted">{r.source.team}</span>
                  {raised.map((a) => (
                    <span key={a.kind} className={`badge ${a.state} ${styles.alarm}`} title={a.label ?? undefined}>
                      {a.kind} {a.state}
                    </span>
                  ))}
                </td>
                <td data-col="open">
                  <Link href={list(r.source.name)}>{r.openCount}</Link>
                </td>
                <td data-col="oldest">{age(r.oldestAgeSeconds)}</td>
                <td data-col="oldest-enqueued">{age(r.oldestEnqueuedAgeSeconds)}</td>
                <td className="prose" data-col="source-queue">
                  {r.sourceQueue ? <SourceQueueFigures reading={r.sourceQueue} /> : <span className="muted">—</span>}
                </td>
                <td data-col="deadline">{formatDuration(r.source.ageDeadlineSeconds)}</td>
                <td data-col="near">
                  <Count n={r.nearDeadline} tone="warn" href={list(r.source.name)} />
                </td>
                <td data-col="breached">
                  <Count n={r.breached} tone="bad" href={list(r.source.name)} />
                </td>
                <td data-col="expire-undecided">
                  <Count n={r.expireUndecided} tone="bad" href={list(r.source.name)} />
                </td>
                <td>
                  <Sparkline
                    values={r.trend.map((t) => t.open)}
                    title={`open at the end of each day: ${r.trend.map((t) => `${t.day} ${t.open ?? '–'}`).join(', ')}`}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <OnHoldClusters actor={actor} />
      <p className="muted">
        {rows.some((r) => r.live) ? 'Some figures were computed just now; ' : ''}
        figures refresh every 15 s.
      </p>
    </>
  );
}
