// /sources — the sources I may read, with their depth and raised alarms
import Link from 'next/link';
import { pageActor } from '@/lib/auth/guard';
import { getSlaBoard } from '@/lib/sla/sla-board';
import { formatDuration } from '@/lib/duration';

export default async function SourcesPage() {
  const actor = await pageActor('deadletters.read');
  const rows = await getSlaBoard(actor);
  return (
    <>
      <h1>Sources</h1>
      <table data-testid="sources-table">
        <thead>
          <tr>
            <th>Source</th>
            <th>Team</th>
            <th>Open</th>
            <th>Deadline</th>
            <th>Retention</th>
            <th>Alarms</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.source.id}>
              <td>
                <Link href={`/sources/${encodeURIComponent(r.source.name)}`}>{r.source.name}</Link>
              </td>
              <td>{r.source.team}</td>
              <td>{r.openCount}</td>
              <td>{formatDuration(r.source.ageDeadlineSeconds)}</td>
              <td>{formatDuration(r.source.retentionSeconds)}</td>
              <td>
                {r.alarms
                  .filter((a) => a.state !== 'OK')
                  .map((a) => (
                    <span key={a.kind} className={`badge ${a.state}`}>
                      {a.kind} {a.state}
                    </span>
                  ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
