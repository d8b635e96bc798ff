// /alarms — every alarm of my sources, raised first, and the history of transitions
import Link from 'next/link';
import { pageActor } from '@/lib/auth/guard';
import { listAlarmEvents, listAlarmStates } from '@/lib/alarms/list-alarms';
import { formatDuration } from '@/lib/duration';
import { listSources } from '@/lib/sources/list-sources';
import { AlarmEventsTable } from '@/components/alarm-events-table';
import { DataTable } from '@/components/data-table';
import { utc } from '@/components/format';

const PAGE = 50;

export default async function AlarmsPage({ searchParams }: { searchParams: Promise<{ source?: string; before?: string }> }) {
  const actor = await pageActor('deadletters.read');
  const sp = await searchParams;
  const sources = await listSources(actor);
  const source = sp.source ? sources.find((s) => s.name === sp.source) : undefined;
  const before = sp.before && /^\d+$/.test(sp.before) ? BigInt(sp.before) : undefined;
  const [states, events] = await Promise.all([
    listAlarmStates(actor, source ? { sourceId: source.id } : {}),
    listAlarmEvents(actor, { sourceId: source?.id, before, limit: PAGE }),
  ]);
  const now = Date.now();
  const last = events[events.length - 1];
  const q = (extra: Record<string, string>) => `/alarms?${new URLSearchParams({ ...(source ? { source: source.name } : {}), ...extra }).toString()}`;
  return (
    <>
      <h1>Alarms</h1>
      <p className="muted">
        Evaluated every 15 s per source: depth &gt; 0 (ALARM after a minute), oldest open age against the deadline (PENDING in its last day), and the
        dead-letter rate (a wave of 50 in 5 min is ALARM).{' '}
        {source ? (
          <>
            Showing {source.name}. <Link href="/alarms">All sources</Link>
          </>
        ) : null}
      </p>
      <DataTable
        testId="alarm-states"
        rows={states}
        rowKey={(a) => `${a.sourceId}-${a.kind}`}
        rowProps={(a) => ({ 'data-source': a.sourceName, 'data-kind': a.kind })}
        columns={[
          { header: 'Source', cell: (a) => <Link href={`/sources/${encodeURIComponent(a.sourceName)}`}>{a.sourceName}</Link> },
          { header: 'Alarm', cell: (a) => a.kind },
          { header: 'State', cell: (a) => <span className={`badge ${a.state}`}>{a.state}</span> },
          { header: 'Since', td: (a) => ({ title: `${utc(a.since)} UTC` }), cell: (a) => `${formatDuration((now - a.since.getTime()) / 1000)} ago` },
          {
            header: 'Value',
            className: 'nowrap',
            cell: (a) =>
              a.detail
                ? `${['age', 'connector', 'redrive'].includes(a.kind) ? formatDuration(Number(a.detail.value)) : String(a.detail.value)} (${String(a.detail.threshold)})`
                : '',
          },
          { header: 'What it suggests', className: 'prose', cell: (a) => (a.label ? `${a.label}: ${a.hint}` : '') },
        ]}
      />
      {states.length === 0 ? <p className="muted">No evaluation yet: the maintenance worker evaluates every 15 s.</p> : null}

      <h2>History</h2>
      <AlarmEventsTable events={events} testId="alarm-events" withSource />
      {last && events.length === PAGE ? <Link href={q({ before: last.id })}>Older →</Link> : null}
    </>
  );
}
