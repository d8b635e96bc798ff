// /audit/[id] — one event: who, what, why, before and after (shown as JSON text, never as markup),
// and whether its content still matches its hash.
import { notFound } from 'next/navigation';
import { pageActor } from '@/lib/auth/guard';
import { eventHash } from '@/lib/audit';
import { getAuditEvent } from '@/lib/audit-trail/list-events';
import { auditEventViews } from '@/lib/audit-trail/present';
import { db } from '@/lib/db';
import { AppError } from '@/lib/errors';
import styles from '../audit.module.css';

const pretty = (v: unknown) => (v === null || v === undefined ? '—' : JSON.stringify(v, null, 2));

export default async function AuditEventPage({ params }: { params: Promise<{ id: string }> }) {
  const actor = await pageActor('audit.read');
  const { id } = await params;
  if (!/^\d{1,19}$/.test(id)) notFound();
  const event = await getAuditEvent(actor, BigInt(id)).catch((e: unknown) => {
    if (e instanceof AppError && e.status === 404) notFound();
    throw e;
  });
  const intact = eventHash(event) === event.hash;
  const previous = await db().auditEvent.findUnique({ where: { hash: event.prevHash }, select: { id: true } });
  const [v] = await auditEventViews([event]);
  if (!v) notFound();
  const rows: [string, string][] = [
    ['Time (UTC)', v.at],
    ['Actor', `${v.actorEmail} (${v.actorRole})${v.actorVia ? ` via ${v.actorVia}` : ''}${v.actorId ? ` · ${v.actorId}` : ''}`],
    ['Action', v.action],
    ['Target', v.targetType ? `${v.targetType} ${v.targetId ?? ''}` : '—'],
    ['Team', v.teamId ?? '—'],
    ['Source', v.sourceId ?? '—'],
    ['Count', v.count === null ? '—' : String(v.count)],
    ['Reason', v.reason ?? '—'],
    ['Result', v.result ?? '—'],
  ];
  return (
    <>
      <h1>Audit event {v.id}</h1>
      <p>
        <a href="/audit">← Audit trail</a>
        {v.targetType === 'redrive_task' && v.targetId ? (
          <>
            {' · '}
            <a href={`/audit?${new URLSearchParams({ targetType: v.targetType, targetId: v.targetId })}`}>History of this redrive task</a>
          </>
        ) : null}
      </p>
      <div className="card">
        <dl className={styles.details} data-testid="audit-event">
          {rows.map(([k, val]) => (
            <div key={k} style={{ display: 'contents' }}>
              <dt>{k}</dt>
              <dd>{val}</dd>
            </div>
          ))}
          <dt>Hash</dt>
          <dd>
            <code>{v.hash}</code>{' '}
            {intact ? <span className="badge good">content matches its hash</span> : <span className="badge bad">content does not match its hash</span>}
          </dd>
          <dt>Previous</dt>
          <dd>
            <code>{v.prevHash}</code> {previous ? <a href={`/audit/${previous.id.toString()}`}>#{previous.id.toString()}</a> : null}
          </dd>
        </dl>
      </div>
      <h2>Selection</h2>
      <pre data-testid="audit-selection">{pretty(v.selection)}</pre>
      <h2>Before</h2>
      <pre data-testid="audit-before">{pretty(v.before)}</pre>
      <h2>After</h2>
      <pre data-testid="audit-after">{pretty(v.after)}</pre>
    </>
  );
}
