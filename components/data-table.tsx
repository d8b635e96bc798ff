// The one table of the pages: a header row, a row per item, an optional caption and empty state.
// Columns are data (a header and how to render a row's cell), so a page says what it shows, not the markup.
import type { ComponentProps, Key, ReactNode } from 'react';

type DataAttributes = { [name: `data-${string}`]: string | number | undefined };

export interface Column<T> {
  /** The column header; '' for a column of buttons. */
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** The cell's class: `prose` for sentences, `nowrap` for a figure (app/globals.css). */
  className?: string;
  /** The header cell's attributes (a class it shares with the cells). */
  th?: ComponentProps<'th'>;
  /** Attributes of a row's cell beyond its class (a `title`, a test id). */
  td?: (row: T) => ComponentProps<'td'> & DataAttributes;
}

export interface DataTableProps<T> {
  rows: readonly T[];
  /** A `false` column is left out (one shown only to some roles, or only with some filters). */
  columns: readonly (Column<T> | false)[];
  /** The index only where the rows are a whole append-only list with no id of their own. */
  rowKey: (row: T, index: number) => Key;
  rowProps?: (row: T) => ComponentProps<'tr'> & DataAttributes;
  testId?: string;
  /**
   * Names the table to a screen reader and makes it focusable: on a phone a table scrolls inside its
   * own box (app/globals.css), which a keyboard must reach when no link in it can take the focus.
   */
  label?: string;
  caption?: ReactNode;
  /** Said in one row across every column when there are no rows. */
  empty?: ReactNode;
  className?: string;
}

export function DataTable<T>({ rows, columns, rowKey, rowProps, testId, label, caption, empty, className }: DataTableProps<T>) {
  const shown = columns.filter((c): c is Column<T> => c !== false);
  return (
    <table className={className} data-testid={testId} tabIndex={label ? 0 : undefined} aria-label={label}>
      {caption ? <caption>{caption}</caption> : null}
      <thead>
        <tr>
          {shown.map((c, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed for the render
            <th key={i} {...c.th}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && empty ? <EmptyRow columns={shown.length}>{empty}</EmptyRow> : null}
        {rows.map((row, index) => (
          <tr key={rowKey(row, index)} {...rowProps?.(row)}>
            {shown.map((c, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed for the render
              <td key={i} className={c.className} {...c.td?.(row)}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A table's empty state: one muted row across its `columns`. */
export function EmptyRow({ columns, children }: { columns: number; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={columns} className="muted">
        {children}
      </td>
    </tr>
  );
}
