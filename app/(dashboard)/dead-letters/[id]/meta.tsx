// The dead-letter page's pieces shared with its tombstone view: the title, a metadata list and the
// rows that name the dead letter, the audit history.
import Link from 'next/link';
import type { ReactNode } from 'react';
import { STATUS_BADGE } from '@/components/format';
import type { DeadLetterHistory, DeadLetterTombstoneView } from '@/lib/deadletters/get-tombstone';
import styles from '../dead-letters.module.css';

/** The way back to the list, and the title: the message id and its status, then `badges`. */
export function DeadLetterTitle({ messageId, status, badges }: { messageId: string; status: string; badges?: ReactNode }) {
  return (
    <>
      <p>
        <Link href="/dead-letters">← Dead letters</Link>
      </p>
      <h1>
        Dead letter <code>{messageId}</code>{' '}
        <span className={`badge ${STATUS_BADGE[status] ?? ''}`} data-testid="status">
          {status}
        </span>
        {badges}
      </h1>
    </>
  );
}

type MetaRow = [string, string | number | null | undefined];

/** The first rows of the metadata, which name the dead letter (a live one or its tombstone). */
export function identityRows(d: Pick<DeadLetterTombstoneView, 'id' | 'source' | 'messageId' | 'generation'>): MetaRow[] {
  return [
    ['Id', d.id],
    ['Source', `${d.source.name} (team ${d.source.team})`],
    ['Message id', d.messageId],
    ['Generation', d.generation],
  ];
}

export function Meta({ rows }: { rows: MetaRow[] }) {
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
