// /audit — the auditor's home: the trail, newest first
import { pageActor } from '@/lib/auth/guard';
import { listAuditEvents } from '@/lib/audit/list-events';

export default async function AuditPage({ searchParams }: { searchParams: Promise<{ before?: string; action?: string }> }) {
  const actor = await pageActor('audit.read');
  const sp = await searchParams;
  const before = sp.before && /^\d+$/.test(sp.before) ? BigInt(sp.before) : undefined;
  const events = await listAuditEvents(actor, { before, action: sp.action, limit: 50 });
  const last = events[events.length - 1];
  return (
    <>
      <h1>Audit trail</h1>
      <table data-testid="audit-table">
        <thead>
          <tr>
            <th>#</th>
            <th>Time</th>
            <th>Actor</th>
            <th>Action</th>
            <th>Target</th>
            <th>Reason</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.id.toString()}>
              <td>{e.id.toString()}</td>
              <td>{e.at.toISOString()}</td>
              <td>
                {e.actorEmail} <span className="muted">({e.actorRole})</span>
              </td>
              <td>{e.action}</td>
              <td>{e.targetType ? `${e.targetType} ${e.targetId ?? ''}` : e.count != null ? `${e.count} items` : ''}</td>
              <td>{e.reason ?? e.result ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {last && events.length === 50 ? <a href={`/audit?before=${last.id.toString()}`}>Older →</a> : null}
    </>
  );
}
