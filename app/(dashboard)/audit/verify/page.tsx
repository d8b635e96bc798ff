// /audit/verify — recompute the hash chain on request, hold it to the signed checkpoints, name the
// first broken link; lists the latest checkpoints. The whole trail only: auditor and admin.
import { redirect } from 'next/navigation';
import { authorize } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { checkpointFile, readCheckpoints, verifyChain } from '@/lib/audit';
import { currentDatabase } from '@/lib/audit/checkpoint-file';
import styles from '../audit.module.css';

export default async function VerifyPage({ searchParams }: { searchParams: Promise<{ run?: string }> }) {
  const actor = await pageActor('audit.read');
  if (authorize(actor, 'audit.read') !== 'all') redirect('/forbidden');
  const { run } = await searchParams;
  const result = run ? await verifyChain() : undefined;
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
          Recomputes every event&apos;s hash in order, checks each links to the one before, and holds the table to the signed checkpoints
          kept outside it, which catch a cut tail or a recomputed chain.
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
              {result.checkpoint ? `, held to the checkpoint of ${result.checkpoint.at} (#${result.checkpoint.headId}, ${result.checkpoint.count} events)` : ''}.
            </p>
          ) : (
            <p>
              <span className="badge bad">broken</span> at event{' '}
              <a href={`/audit/${result.firstBrokenId}`} data-testid="first-broken">
                #{result.firstBrokenId}
              </a>
              : {result.problem}. {result.checked} events checked before it.
            </p>
          )}
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
              <td>{c.at}</td>
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
