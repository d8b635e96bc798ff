// What a redrive covers, in words with links, for the task page (the stored selection is JSON, which
// a person at 3 a.m. should not have to read).
import Link from 'next/link';
import type { ReactNode } from 'react';

type Selection = Record<string, unknown>;

const plural = (n: number, word: string) => `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;

/** The filter's fields as `name: value`, in the list's own words (its query keys). */
function filterWords(filter: unknown): string {
  if (!filter || typeof filter !== 'object') return 'any';
  const parts = Object.entries(filter as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return parts.length ? parts.join(' · ') : 'any';
}

export function SelectionWords({ selection, source }: { selection: unknown; source: string }): ReactNode {
  const s = (selection ?? {}) as Selection;
  const sourceLink = <Link href={`/sources/${encodeURIComponent(source)}`}>{source}</Link>;
  if (Array.isArray(s.ids))
    return (
      <>
        {plural(s.ids.length, 'selected dead letter')} of {sourceLink}
      </>
    );
  if (typeof s.cluster === 'string') {
    return (
      <>
        the open dead letters of <Link href={`/clusters/${s.cluster}`}>a cluster</Link> in {sourceLink}
      </>
    );
  }
  if ('filter' in s) {
    return (
      <>
        the open dead letters of {sourceLink} matching <code>{filterWords(s.filter)}</code>
      </>
    );
  }
  return <>every open dead letter of {sourceLink}</>;
}
