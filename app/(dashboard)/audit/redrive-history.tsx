// A redrive task's history on the trail page: what the task was, and who did what to it, in order.
import type { Principal } from '@/lib/auth';
import { auditEventViews } from '@/lib/audit-trail/present';
import { getRedriveHistory } from '@/lib/audit-trail/redrive-history';
import { maskJson, maskText } from '@/lib/masking';
import styles from './audit.module.css';

const json = (v: unknown) => JSON.stringify(v);

export async function RedriveHistory({ actor, taskId }: { actor: Principal; taskId: string }) {
  const { task, createdBy, approvedBy, events } = await getRedriveHistory(actor, taskId);
  return (
    <section className="card" data-testid="redrive-history">
      <h2 style={{ marginTop: 0 }}>Redrive task {taskId}</h2>
      {task ? (
        <dl className={styles.details}>
          <dt>Source</dt>
          <dd>{task.source.name}</dd>
          <dt>Status</dt>
          <dd>{task.status}</dd>
          <dt>Selection</dt>
          <dd>
            <code>{json(maskJson(task.selection))}</code>
          </dd>
          <dt>Rate</dt>
          <dd>
            {task.ratePerSecond}/s{task.canary ? ', canary first' : ''}
          </dd>
          <dt>Progress</dt>
          <dd>
            {task.sent} sent of {task.total} · {task.acknowledged} acknowledged · {task.noDeathSeen} no death seen · {task.deadAgain} dead again ·{' '}
            {task.skipped} skipped · {task.failed} failed
          </dd>
          <dt>Reason</dt>
          <dd>{task.reason ? maskText(task.reason) : '—'}</dd>
          <dt>Started by</dt>
          <dd>{createdBy ?? '—'}</dd>
          <dt>Approved by</dt>
          <dd>{approvedBy ? `${approvedBy} at ${task.approvedAt?.toISOString()}` : '—'}</dd>
          <dt>Finished</dt>
          <dd>{task.finishedAt?.toISOString() ?? '—'}</dd>
        </dl>
      ) : (
        <p className="muted">The task itself is not visible to you or no longer exists; its events follow.</p>
      )}
      <h2>History</h2>
      <ol className={styles.timeline} data-testid="redrive-timeline">
        {(await auditEventViews(events)).map((e) => (
          <li key={e.id}>
            <a href={`/audit/${e.id}`}>{e.at}</a> · <strong>{e.action}</strong> by {e.actorEmail} ({e.actorRole}){e.actorVia ? ` via ${e.actorVia}` : ''}
            {e.count != null ? ` · ${e.count} items` : ''}
            {e.reason ? ` · why: ${e.reason}` : ''}
            {e.result ? ` · outcome: ${e.result}` : ''}
            {e.selection != null ? (
              <>
                {' '}
                · selection <code>{json(e.selection)}</code>
              </>
            ) : null}
          </li>
        ))}
      </ol>
      {events.length === 0 ? <p className="muted">No events for this task.</p> : null}
    </section>
  );
}
