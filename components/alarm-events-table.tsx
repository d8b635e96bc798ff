// Alarm transitions as a table: /alarms (every source, with a Source column) and a source's page.
import type { listAlarmEvents } from '@/lib/alarms/list-alarms';
import { utc } from './format';

type AlarmEvent = Awaited<ReturnType<typeof listAlarmEvents>>[number];

export function AlarmEventsTable({ events, testId, withSource = false }: { events: AlarmEvent[]; testId: string; withSource?: boolean }) {
  return (
    // Focusable: on a phone it scrolls inside its own box, which a keyboard must reach.
    <table data-testid={testId} tabIndex={0} aria-label="Alarm history">
      <thead>
        <tr>
          <th>Time (UTC)</th>
          {withSource ? <th>Source</th> : null}
          <th>Alarm</th>
          <th>Change</th>
          <th>Label</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <tr key={e.id}>
            <td>{utc(e.at)}</td>
            {withSource ? <td>{e.sourceName}</td> : null}
            <td>{e.kind}</td>
            <td>
              <span className={`badge ${e.from}`}>{e.from}</span> → <span className={`badge ${e.to}`}>{e.to}</span>
            </td>
            <td className="prose">{e.label ? `${e.label}: ${e.hint}` : ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
