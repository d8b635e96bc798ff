// The GET filter form of the list pages and its fields: one markup for the source selector and the
// dead-letter filters (status, reason, search, sort) wherever a page offers them.
import type { ReactNode } from 'react';
import { DEAD_LETTER_STATUSES } from '@/lib/deadletters/filters';
import { DEAD_LETTER_REASONS } from '@/lib/deadletters/record-dead-letters';
import styles from './filter-fields.module.css';

export function FilterForm({ testId, className, children }: { testId?: string; className?: string; children: ReactNode }) {
  return (
    <form method="get" className={`card ${styles.filters}${className ? ` ${className}` : ''}`} data-testid={testId}>
      {children}
    </form>
  );
}

export function SourceSelect({ sources, value, anyLabel = 'any' }: { sources: readonly { id: string; name: string }[]; value: string; anyLabel?: string }) {
  return (
    <label>
      Source
      <select name="source" defaultValue={value}>
        <option value="">{anyLabel}</option>
        {sources.map((s) => (
          <option key={s.id} value={s.name}>
            {s.name}
          </option>
        ))}
      </select>
    </label>
  );
}

export function StatusSelect({ value }: { value: string }) {
  return (
    <label>
      Status
      <select name="status" defaultValue={value}>
        <option value="">any</option>
        {DEAD_LETTER_STATUSES.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </select>
    </label>
  );
}

export function ReasonSelect({ value }: { value: string }) {
  return (
    <label>
      Reason
      <select name="reason" defaultValue={value}>
        <option value="">any</option>
        {DEAD_LETTER_REASONS.map((r) => (
          <option key={r}>{r}</option>
        ))}
      </select>
    </label>
  );
}

export function PayloadSearchInput({ value }: { value: string }) {
  return (
    <label>
      Search payload and error text
      <input type="search" name="q" defaultValue={value} placeholder="at least 3 characters" />
    </label>
  );
}

export function SortSelect({ value }: { value: string }) {
  return (
    <label>
      Sort
      <select name="sort" defaultValue={value}>
        <option value="newest">newest first</option>
        <option value="oldest">oldest first</option>
      </select>
    </label>
  );
}
