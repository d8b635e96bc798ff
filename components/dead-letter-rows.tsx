// The dead-letter rows table, shared by /dead-letters and a cluster's members: one place for its
// columns, and for keeping long message ids and errors from widening the page (they are cut with an
// ellipsis inside a block that has a width limit; a table cell alone does not honour one). A row's
// error opens in place to be read whole, wrapped to the window's width.
import Link from 'next/link';
import type { DeadLetterSummary } from '@/lib/deadletters/list-dead-letters';
import { EmptyRow } from './data-table';
import { age, bytes, STATUS_BADGE } from './format';
import styles from './dead-letter-rows.module.css';

export function DeadLetterRows({
  deadLetters,
  testId,
  rowTestId,
  selectable = false,
  empty,
}: {
  deadLetters: DeadLetterSummary[];
  testId: string;
  rowTestId?: string;
  /** Row checkboxes that belong to the bulk-actions form (`form="bulk-form"`). */
  selectable?: boolean;
  empty: string;
}) {
  return (
    <div className={styles.scroll}>
      <table data-testid={testId} className={styles.rows}>
        <thead>
          <tr>
            {selectable ? <th aria-label="Select" /> : null}
            <th>Dead</th>
            <th>Source</th>
            <th>Message</th>
            <th>Reason</th>
            <th>Error</th>
            <th>Status</th>
            <th>Size</th>
          </tr>
        </thead>
        <tbody>
          {deadLetters.map((d) => (
            <tr key={d.id} data-testid={rowTestId}>
              {selectable ? (
                <td>
                  <input type="checkbox" name="ids" value={d.id} form="bulk-form" aria-label={`Select ${d.messageId}`} />
                </td>
              ) : null}
              <td className={styles.nowrap} title={d.deadAt}>
                {age(d.deadAt)} ago
              </td>
              <td>{d.source}</td>
              <td>
                <div className={styles.truncate}>
                  <Link href={`/dead-letters/${d.id}`}>{d.messageId}</Link>
                </div>
                <div className={`${styles.truncate} ${styles.preview}`}>{d.masked ? '(sensitive: masked)' : (d.preview?.slice(0, 120) ?? '(binary)')}</div>
              </td>
              <td>{d.reason}</td>
              <td className={styles.error}>
                {d.errorMessage ? (
                  // Native disclosure: a keyboard reaches and opens it (Enter, Space) with no script.
                  <details>
                    <summary title={d.errorMessage}>
                      <span className={styles.truncate}>
                        <strong>{d.errorType ?? '—'}</strong> {d.errorMessage}
                      </span>
                    </summary>
                    <div className={styles.errorFull} data-testid="error-full">
                      <strong>{d.errorType ?? '—'}</strong> {d.errorMessage}
                      {d.errorMessageCut ? (
                        <>
                          {' '}
                          … <Link href={`/dead-letters/${d.id}`}>Read the whole message and the stack</Link>
                        </>
                      ) : null}
                    </div>
                  </details>
                ) : (
                  <div className={styles.truncate}>
                    <strong>{d.errorType ?? '—'}</strong>
                  </div>
                )}
              </td>
              <td>
                <span className={`badge ${STATUS_BADGE[d.status] ?? ''}`}>{d.status}</span>
              </td>
              <td className={styles.nowrap}>{bytes(d.payloadSize)}</td>
            </tr>
          ))}
          {deadLetters.length === 0 ? <EmptyRow columns={selectable ? 8 : 7}>{empty}</EmptyRow> : null}
        </tbody>
      </table>
    </div>
  );
}
