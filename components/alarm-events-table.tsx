// Alarm transitions as a table: /alarms (every source, with a Source column) and a source's page.
import type { listAlarmEvents } from '@/lib/alarms/list-alarms';
import { DataTable } from './data-table';
import { utc } from './format';

type AlarmEvent = Awaited<ReturnType<typeof listAlarmEvents>>[number];

export function AlarmEventsTable({ events, testId, withSource = false }: { events: AlarmEvent[]; testId: string; withSource?: boolean }) {
  return (
    <DataTable
      testId={testId}
      label="Alarm history"
      rows={events}
      rowKey={(e) => e.id}
      columns={[
        { header: 'Time (UTC)', cell: (e) => utc(e.at) },
        withSource && { header: 'Source', cell: (e) => e.sourceName },
        { header: 'Alarm', cell: (e) => e.kind },
        {
          header: 'Change',
          cell: (e) => (
            <>
              <span className={`badge ${e.from}`}>{e.from}</span> → <span className={`badge ${e.to}`}>{e.to}</span>
            </>
          ),
        },
        { header: 'Label', className: 'prose', cell: (e) => (e.label ? `${e.label}: ${e.hint}` : '') },
      ]}
    />
  );
}
