// /audit — the auditor's home: the trail newest first, filtered, keyset-paged, exportable; a lead
// sees their own team's events. With targetType=redrive_task&targetId=… it is that task's history.
import { authorize, can } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { AUDIT_FILTER_KEYS, auditFilterSchema, auditFilterToSearch, type AuditFilter } from '@/lib/audit-trail/filter';
import { AUDIT_PAGE_SIZE, listAuditActions, listAuditEvents } from '@/lib/audit-trail/list-events';
import { auditEventViews } from '@/lib/audit-trail/present';
import { REDRIVE_TASK_TARGET } from '@/lib/audit-trail/redrive-history';
import { listSources } from '@/lib/sources/list-sources';
import { SaveViewForm } from '@/components/save-view-form';
import { DataTable } from '@/components/data-table';
import { OpenedView } from '@/components/opened-view';
import { filterProblem } from '@/components/search-params';
import { AuditFilters } from './filters';
import { RedriveHistory } from './redrive-history';
import styles from './audit.module.css';

type Search = Record<string, string | string[] | undefined>;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

// The audit filter form's labels (./filters.tsx), for a filter it cannot apply.
const AUDIT_FILTER_LABELS: Record<string, string> = {
  actor: 'Actor',
  action: 'Action',
  source: 'Source',
  targetType: 'Target type',
  targetId: 'Target id',
  from: 'From',
  to: 'To',
};

export default async function AuditPage({ searchParams }: { searchParams: Promise<Search> }) {
  const actor = await pageActor('audit.read');
  const sp = await searchParams;
  const parsed = auditFilterSchema.safeParse(Object.fromEntries(AUDIT_FILTER_KEYS.map((k) => [k, one(sp[k])])));
  const filter: AuditFilter = parsed.success ? parsed.data : {};
  const beforeParam = one(sp.before);
  const before = beforeParam && /^\d{1,19}$/.test(beforeParam) ? BigInt(beforeParam) : undefined;
  const [events, actions, sources] = await Promise.all([
    parsed.success ? listAuditEvents(actor, { filter, before, limit: AUDIT_PAGE_SIZE }) : Promise.resolve([]),
    listAuditActions(),
    listSources(actor, 'audit.read'),
  ]);
  const views = await auditEventViews(events);
  const query = auditFilterToSearch(filter);
  const last = views[views.length - 1];
  const older = last && views.length === AUDIT_PAGE_SIZE ? `/audit?${new URLSearchParams([...query, ['before', last.id]])}` : null;
  const exportHref = (format: string) => `/api/v1/audit/export?${new URLSearchParams([['format', format], ...query])}`;
  const wholeTrail = authorize(actor, 'audit.read') === 'all';
  const sourceName = new Map(sources.map((s) => [s.id, s.name]));

  return (
    <>
      <h1>Audit trail</h1>
      <OpenedView actor={actor} id={one(sp.view)} />
      {filter.targetType === REDRIVE_TASK_TARGET && filter.targetId ? <RedriveHistory actor={actor} taskId={filter.targetId} /> : null}
      <AuditFilters filter={filter} actions={actions} sources={sources.map((s) => ({ id: s.id, name: s.name }))} />
      {parsed.success ? null : (
        <p className="error" role="alert">
          {filterProblem(parsed.error, AUDIT_FILTER_LABELS)}
        </p>
      )}
      {parsed.success && can(actor.role, 'views.manage') ? <SaveViewForm page="audit" filters={query.toString()} canShare={!!actor.teamId} /> : null}
      <div className={styles.actions}>
        <a href={exportHref('csv')} data-testid="export-csv" download>
          Export CSV
        </a>
        <a href={exportHref('ndjson')} data-testid="export-ndjson" download>
          Export NDJSON
        </a>
        {wholeTrail ? (
          <a href="/audit/verify">Verify the chain</a>
        ) : (
          <span className="muted" data-testid="verify-note">
            The chain spans every team: an auditor or an admin verifies it.
          </span>
        )}
        <span className="muted">E-mails, IBANs and card numbers in details are masked for every role.</span>
      </div>
      <DataTable
        testId="audit-table"
        rows={views}
        rowKey={(e) => e.id}
        rowProps={(e) => ({ 'data-testid': 'audit-row', 'data-id': e.id })}
        columns={[
          { header: '#', cell: (e) => <a href={`/audit/${e.id}`}>{e.id}</a> },
          { header: 'Time (UTC)', className: 'time', cell: (e) => e.at },
          {
            header: 'Actor',
            cell: (e) => (
              <>
                {e.actorEmail}{' '}
                <span className="muted">
                  ({e.actorRole}){e.actorVia ? ` via ${e.actorVia}` : ''}
                </span>
              </>
            ),
          },
          { header: 'Action', cell: (e) => e.action },
          { header: 'Target', cell: (e) => (e.targetType ? `${e.targetType} ${e.targetId ?? ''}` : '') },
          { header: 'Source', cell: (e) => (e.sourceId ? (sourceName.get(e.sourceId) ?? e.sourceId) : '') },
          { header: 'Count', cell: (e) => e.count ?? '' },
          { header: 'Reason / result', className: styles.cell, cell: (e) => e.reason ?? e.result ?? '' },
        ]}
      />
      {views.length === 0 ? <p className="muted">No events match.</p> : null}
      <div className={styles.actions}>
        {before ? <a href={`/audit?${query}`}>← Newest</a> : null}
        {older ? <a href={older}>Older →</a> : null}
      </div>
    </>
  );
}
