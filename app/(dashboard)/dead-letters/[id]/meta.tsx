// The dead-letter page's pieces shared with its tombstone view: a metadata list, the audit history.
import type { DeadLetterHistory } from '@/lib/deadletters/get-tombstone';
import styles from '../dead-letters.module.css';

export function Meta({ rows }: { rows: [string, string | number | null | undefined][] }) {
  return (
    <dl className={styles.meta}>
      {rows.map(([k, v]) => (
        <div key={k} style={{ display: 'contents' }}>
          <dt>{k}</dt>
          <dd>{v === null || v === undefined || v === '' ? '—' : String(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

export function AuditHistory({ history }: { history: DeadLetterHistory }) {
  if (!history.length) return null;
  return (
    <table style={{ marginTop: 12 }} data-testid="history">
      <tbody>
        {history.map((h, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the history is append-only and rendered whole; its rows have no id
          <tr key={i}>
            <td className="time">{h.at}</td>
            <td>{h.action}</td>
            <td>
              {h.actor} <span className="muted">({h.role})</span>
            </td>
            <td>{h.reason}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
