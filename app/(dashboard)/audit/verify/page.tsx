// /audit/verify — recompute the hash chain on request, hold it to the signed checkpoints, list every
// break (an admin may acknowledge one, with a reason); lists the latest checkpoints. The whole trail
// only: auditor and admin.
import { redirect } from 'next/navigation';
import { authorize, can } from '@/lib/auth';
import { ActionForm } from '@/components/action-form';
import { acknowledgeBreakAction } from './actions';
import { pageActor } from '@/lib/auth/guard';
import { checkpointFile, readCheckpoints, verifyChain } from '@/lib/audit';
import { currentDatabase } from '@/lib/audit/checkpoint-file';
import styles from '../audit.module.css';
import { LimitedInput } from '@/components/limited-input';

export default async function VerifyPage({ searchParams }: { searchParams: Promise<{ run?: string }> }) {
  const actor = await pageActor('audit.read');
  if (authorize(actor, 'audit.read') !== 'all') redirect('/forbidden');
  const { run } = await searchParams;
  const result = run ? await verifyChain() : undefined;
  const admin = can(actor.role, 'admin.manage');
  const { checkpoints, invalid } = await readCheckpoints({ db: await currentDatabase() });
  const latest = checkpoints.slice(-10).reverse();
  return (
    <>
      <h1>Verify the audit trail</h1>
      <p>
        <a href="/audit">← Audit trail</a>
      </p>
      <div className="card">
        <p>
          Recomputes every event&apos;s hash in order, checks each links to the one before, and holds the table to the signed checkpoints kept outside it, which
          catch a cut tail or a recomputed chain.
        </p>
        <form method="get" action="/audit/verify">
          <input type="hidden" name="run" value="1" />
          <button type="submit">Verify now</button>
        </form>
      </div>
      {result ? (
        <div className="card" data-testid="verify-result" role="status">
          {result.ok ? (
            <p>
              <span className="badge good">intact</span> {result.checked} events checked
              {result.checkpoint ? `, held to the checkpoint of ${result.checkpoint.at} (#${result.checkpoint.headId}, ${result.checkpoint.count} events)` : ''}
              {result.breakCount ? `; ${result.breakCount} acknowledged break(s), listed below` : ''}.
            </p>
          ) : (
            <p>
              <span className="badge bad">broken</span> {result.unacknowledged} break(s) not acknowledged, the first at event{' '}
              <a href={`/audit/${result.firstBrokenId}`} data-testid="first-broken">
                #{result.firstBrokenId}
              </a>
              : {result.problem}. {result.checked} events checked.
            </p>
          )}
          {result.breaks.length > 0 ? (
            <table data-testid="breaks-table">
              <thead>
                <tr>
                  <th>Event</th>
                  <th>Break</th>
                  <th>Acknowledged</th>
                </tr>
              </thead>
              <tbody>
                {result.breaks.map((b) => (
                  <tr key={`${b.id}-${b.kind}`} data-testid="break-row">
                    <td>
                      <a href={`/audit/${b.id}`}>#{b.id}</a>
                    </td>
                    <td>
                      {b.kind}: {b.problem}
                    </td>
                    <td>
                      {b.acknowledged ? (
                        <span>
                          by {b.acknowledged.by} at {b.acknowledged.at}: {b.acknowledged.reason}
                        </span>
                      ) : admin ? (
                        <ActionForm action={acknowledgeBreakAction} submit="Acknowledge" testId="acknowledge-break">
                          <input type="hidden" name="id" value={b.id} />
                          <label>
                            Reason <LimitedInput name="reason" required limit={1000} />
                          </label>
                        </ActionForm>
                      ) : (
                        <span className="muted">not acknowledged</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {result.breakCount > result.breaks.length ? <p className="muted">{result.breakCount - result.breaks.length} more break(s) not listed.</p> : null}
          {result.invalidCheckpoints ? (
            <p className="error">{result.invalidCheckpoints} checkpoint line(s) carry a wrong signature: someone wrote them without the key.</p>
          ) : null}
        </div>
      ) : null}
      <h2>Latest checkpoints</h2>
      <p className="muted">
        Kept in <code>{checkpointFile()}</code>
        {invalid ? ` (${invalid} line(s) with a wrong signature ignored)` : ''}.
      </p>
      <table data-testid="checkpoints-table">
        <thead>
          <tr>
            <th>Written (UTC)</th>
            <th>Head</th>
            <th>Events</th>
            <th>Head hash</th>
          </tr>
        </thead>
        <tbody>
          {latest.map((c) => (
            <tr key={c.headId + c.at}>
              <td className="time">{c.at}</td>
              <td>
                <a href={`/audit/${c.headId}`}>#{c.headId}</a>
              </td>
              <td>{c.count}</td>
              <td className={styles.cell}>
                <code>{c.headHash}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {latest.length === 0 ? <p className="muted">No checkpoint yet: the maintenance worker writes them, or `npm run triage -- audit checkpoint`.</p> : null}
    </>
  );
}
