// The keyset pager of every list page: back to the first page once a cursor is in the query, and a
// next page while the list returned a cursor. Keyset, not offset: there is no "page 7" to link to.
import Link from 'next/link';
import styles from './keyset-pager.module.css';

export function KeysetPager({
  path,
  query,
  cursor,
  nextCursor,
}: {
  /** The page's own path, e.g. `/dead-letters`. */
  path: string;
  /** The filters, without the cursor. */
  query: URLSearchParams;
  /** The cursor this page was opened with. */
  cursor: string | null | undefined;
  nextCursor: string | null;
}) {
  return (
    <div className={styles.pager}>
      {cursor ? <Link href={`${path}?${query}`}>← First page</Link> : null}
      {nextCursor ? <Link href={`${path}?${new URLSearchParams([...query, ['cursor', nextCursor]])}`}>Next page →</Link> : null}
    </div>
  );
}
