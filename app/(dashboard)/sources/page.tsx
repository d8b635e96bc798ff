// /sources — the sources I may read, with their depth and raised alarms
import Link from 'next/link';
import { DataTable } from '@/components/data-table';
import { pageActor } from '@/lib/auth/guard';
import { getSlaBoard } from '@/lib/sla/sla-board';
import { formatDuration } from '@/lib/duration';

export default async function SourcesPage() {
  const actor = await pageActor('deadletters.read');
  const rows = await getSlaBoard(actor);
  return (
    <>
      <h1>Sources</h1>
      <DataTable
        testId="sources-table"
        rows={rows}
        rowKey={(r) => r.source.id}
        columns={[
          { header: 'Source', cell: (r) => <Link href={`/sources/${encodeURIComponent(r.source.name)}`}>{r.source.name}</Link> },
          { header: 'Team', cell: (r) => r.source.team },
          { header: 'Open', cell: (r) => r.openCount },
          { header: 'Deadline', cell: (r) => formatDuration(r.source.ageDeadlineSeconds) },
          { header: 'Retention', cell: (r) => formatDuration(r.source.retentionSeconds) },
          {
            header: 'Alarms',
            cell: (r) =>
              r.alarms
                .filter((a) => a.state !== 'OK')
                .map((a) => (
                  <span key={a.kind} className={`badge ${a.state}`}>
                    {a.kind} {a.state}
                  </span>
                )),
          },
        ]}
      />
    </>
  );
}
