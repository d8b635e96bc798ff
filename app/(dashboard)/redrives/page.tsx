// /redrives — redrive tasks of the actor's sources, newest first, and the approval queue for leads
import Link from 'next/link';
import { can } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { listPendingApprovals, listRedriveTasks, type RedriveTaskView } from '@/lib/redrive';
import { ProgressBar } from '@/components/redrive/progress-bar';
import { CommandButtons } from './command-buttons';
import { awaitingOutcomes, STATUS_BADGE, VERDICT_BADGE } from './format';

const STATUSES = ['active', 'completed', 'cancelled'] as const;

function Row({ t, approve }: { t: RedriveTaskView; approve?: boolean }) {
  return (
    <tr data-testid="redrive-row" data-task={t.id}>
      <td>
        <Link href={`/redrives/${t.id}`}>{t.createdAt.replace('T', ' ').slice(0, 19)}</Link>
      </td>
      <td>{t.source.name}</td>
      <td>
        <span className={`badge ${STATUS_BADGE[t.status]}`}>{t.status.replace('_', ' ')}</span>
        {awaitingOutcomes(t) ? <span className="muted"> — awaiting outcomes</span> : null}
      </td>
      <td style={{ minWidth: 160 }}>
        <ProgressBar counts={t.counts} />
        <span className="muted">
          {t.counts.sent + t.counts.skipped + t.counts.failed} / {t.counts.total}
        </span>
      </td>
      <td className="prose">
        {t.counts.acknowledged} ack · <span data-testid="row-no-death-seen">{t.counts.noDeathSeen}</span> no death seen · {t.counts.deadAgain} dead ·{' '}
        {t.counts.skipped} skipped
      </td>
      <td>
        <span className={`badge ${VERDICT_BADGE[t.verdict]}`}>{t.verdict}</span>
      </td>
      <td>
        {t.ratePerSecond}/s{t.canary ? ' · canary' : ''}
      </td>
      <td>{t.createdBy ?? '—'}</td>
      {approve ? (
        <td>
          <CommandButtons taskId={t.id} verbs={['approve', 'cancel']} />
        </td>
      ) : null}
    </tr>
  );
}

const HEAD = ['Started', 'Source', 'Status', 'Progress', 'Outcome', 'Worked?', 'Rate', 'By'];

export default async function RedrivesPage({ searchParams }: { searchParams: Promise<{ status?: string; after?: string; source?: string }> }) {
  const actor = await pageActor('deadletters.read');
  const sp = await searchParams;
  const status = STATUSES.find((s) => s === sp.status);
  const [page, approvals] = await Promise.all([
    listRedriveTasks(actor, { status, after: sp.after, source: sp.source }),
    can(actor.role, 'redrive.approve') ? listPendingApprovals(actor) : Promise.resolve(null),
  ]);
  const mine = approvals?.filter((t) => t.createdBy !== actor.email) ?? [];
  return (
    <>
      <h1>Redrives</h1>
      {can(actor.role, 'deadletters.redrive') ? (
        <p>
          <Link href="/redrives/new">Start a redrive…</Link> <span className="muted">(or from a dead letter, a selection, a cluster or a source)</span>
        </p>
      ) : null}
      {approvals ? (
        <section className="card" data-testid="approval-queue">
          <h2 style={{ marginTop: 0 }}>Waiting for your approval</h2>
          {mine.length === 0 ? (
            <p className="muted">Nothing waits for you.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  {HEAD.map((h) => (
                    <th key={h}>{h}</th>
                  ))}
                  <th />
                </tr>
              </thead>
              <tbody>
                {mine.map((t) => (
                  <Row key={t.id} t={t} approve />
                ))}
              </tbody>
            </table>
          )}
        </section>
      ) : null}
      <nav className="inline" style={{ display: 'flex', gap: 12, margin: '8px 0' }}>
        <Link href="/redrives">all</Link>
        {STATUSES.map((s) => (
          <Link key={s} href={`/redrives?status=${s}`}>
            {s}
          </Link>
        ))}
      </nav>
      <table data-testid="redrives-table">
        <thead>
          <tr>
            {HEAD.map((h) => (
              <th key={h}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {page.tasks.map((t) => (
            <Row key={t.id} t={t} />
          ))}
        </tbody>
      </table>
      {page.tasks.length === 0 ? <p className="muted">No redrive tasks yet.</p> : null}
      {page.next ? <Link href={`/redrives?${new URLSearchParams({ ...(status ? { status } : {}), after: page.next })}`}>Older →</Link> : null}
    </>
  );
}
