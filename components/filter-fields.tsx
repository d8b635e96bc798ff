// The GET filter form of the list pages and its fields: one markup for the source selector and the
// dead-letter filters (status, reason, search, sort) wherever a page offers them.
import type { ReactNode } from 'react';
import { DEAD_LETTER_STATUSES } from '@/lib/deadletters/filters';
import { DEAD_LETTER_REASONS } from '@/lib/intake/record-dead-letters';
import styles from './filter-fields.module.css';

export function FilterForm({ testId, className, children }: { testId?: string; className?: string; children: ReactNode }) {
  return (
    <form method="get" className={`card ${styles.filters}${className ? ` ${className}` : ''}`} data-testid={testId}>
      {children}
    </form>
  );
}

/** A labelled select whose first option, "any" by default, means no filter (an empty value). */
function SelectField({
  label,
  name,
  value,
  options,
  anyLabel,
}: {
  label: string;
  name: string;
  value: string;
  options: readonly (string | { value: string; label: string })[];
  anyLabel?: string;
}) {
  return (
    <label>
      {label}
      <select name={name} defaultValue={value}>
        {anyLabel !== undefined && <option value="">{anyLabel}</option>}
        {options.map((o) => {
          const { value: v, label: text } = typeof o === 'string' ? { value: o, label: o } : o;
          return (
            <option key={v} value={v}>
              {text}
            </option>
          );
        })}
      </select>
    </label>
  );
}

export function SourceSelect({ sources, value, anyLabel = 'any' }: { sources: readonly { id: string; name: string }[]; value: string; anyLabel?: string }) {
  // The value is the name (the URL a user shares says source=orders, not an id).
  return <SelectField label="Source" name="source" value={value} anyLabel={anyLabel} options={sources.map((s) => s.name)} />;
}

export function StatusSelect({ value }: { value: string }) {
  return <SelectField label="Status" name="status" value={value} anyLabel="any" options={DEAD_LETTER_STATUSES} />;
}

export function ReasonSelect({ value }: { value: string }) {
  return <SelectField label="Reason" name="reason" value={value} anyLabel="any" options={DEAD_LETTER_REASONS} />;
}

export function PayloadSearchInput({ value }: { value: string }) {
  return (
    <label>
      Search payload and error text
      <input type="search" name="q" defaultValue={value} placeholder="at least 3 characters" />
    </label>
  );
}

/** The cluster lists' search (/clusters, /inbox): words of the error template. */
export function TemplateSearchInput({ value }: { value: string }) {
  return (
    <label>
      Template contains
      <input type="search" name="q" defaultValue={value} />
    </label>
  );
}

const SORTS = [
  { value: 'newest', label: 'newest first' },
  { value: 'oldest', label: 'oldest first' },
] as const;

export function SortSelect({ value }: { value: string }) {
  return <SelectField label="Sort" name="sort" value={value} options={SORTS} />;
}
