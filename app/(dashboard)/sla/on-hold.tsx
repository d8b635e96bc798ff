// Clusters on hold, on the SLA board: a hold says why a cause waits, it does not stop the clock,
// so their dead letters still count in the deadlines above.
import Link from 'next/link';
import type { Principal } from '@/lib/auth';
import { listClusters } from '@/lib/clustering/list-clusters';

export async function OnHoldClusters({ actor }: { actor: Principal }) {
  const { clusters } = await listClusters(actor, { owner: 'on_hold', state: 'all' }, null, { limit: 50 });
  return (
    <section className="card" data-testid="sla-on-hold">
      <h2>On hold</h2>
      <p className="muted">The SLA clock keeps running for these: their open dead letters count in the deadlines above.</p>
      {clusters.length === 0 ? (
        <p className="muted">No cluster is on hold.</p>
      ) : (
        <ul>
          {clusters.map((c) => (
            <li key={c.id} data-testid="sla-on-hold-cluster">
              <Link href={`/clusters/${c.id}`}>{c.template.slice(0, 120) || '(empty message)'}</Link> · {c.openCount.toLocaleString('en')} open ·{' '}
              {c.ownership.assignee ?? 'unassigned'} · until {c.ownership.holdUntil?.slice(0, 16).replace('T', ' ')} UTC ·{' '}
              {c.sources.map((s) => s.name).join(', ')}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
