// /redrives/new — start a redrive: ?cluster=<id>[&source=], ?ids=1,2, ?source=<name> or ?selection=<JSON>; the preview comes first
import Link from 'next/link';
import { pageActor } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { selectionFromQuery } from '@/lib/redrive/http';
import type { RedriveSelectionInput } from '@/lib/redrive';
import { listSources } from '@/lib/sources/list-sources';
import { StartRedrive } from '../../_redrive/start-redrive';
import { redriveHref } from '../../_redrive/redrive-href';
import { redriveDestinations } from '../../_redrive/destinations';

function describe(s: RedriveSelectionInput): string {
  if ('ids' in s) return `${s.ids.length} selected dead letter${s.ids.length === 1 ? '' : 's'}`;
  if ('cluster' in s) return `cluster ${s.cluster}${s.source ? ` in ${s.source}` : ''}`;
  if ('filter' in s) return 'the filtered dead letters';
  return `all open dead letters of ${s.source}`;
}

export default async function NewRedrivePage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const actor = await pageActor('deadletters.redrive');
  const sp = await searchParams;
  let selection: RedriveSelectionInput | null = null;
  let problem: string | null = null;
  try {
    selection = selectionFromQuery(new URLSearchParams(Object.entries(sp).filter((e): e is [string, string] => typeof e[1] === 'string')));
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    if (Object.keys(sp).length) problem = e.message;
  }
  if (!selection) {
    const sources = await listSources(actor, 'deadletters.redrive');
    return (
      <>
        <h1>Start a redrive</h1>
        {problem ? <p className="error">{problem}</p> : null}
        <p>Redrive every open dead letter of a source, or start from a dead letter, a selection of the list, or a cluster.</p>
        <ul data-testid="redrive-sources">
          {sources.map((s) => (
            <li key={s.id}>
              <Link href={redriveHref({ source: s.name })}>{s.name}</Link> <span className="muted">({s.kind})</span>
            </li>
          ))}
        </ul>
      </>
    );
  }
  const destinations = await redriveDestinations(actor);
  return (
    <>
      <h1>Start a redrive</h1>
      <StartRedrive selection={selection} title={`Redrive ${describe(selection)}`} destinations={destinations} />
    </>
  );
}
