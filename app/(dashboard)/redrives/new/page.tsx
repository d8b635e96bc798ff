// /redrives/new — start a redrive: ?cluster=<id>[&source=], ?ids=1,2, ?source=<name> or ?selection=<JSON>; the preview comes first
import Link from 'next/link';
import { pageActor } from '@/lib/auth/guard';
import type { RedriveSelectionInput } from '@/lib/redrive';
import { getCluster } from '@/lib/clustering/get-cluster';
import { listSources } from '@/lib/sources/list-sources';
import { redriveDestinations } from '@/components/redrive/destinations';
import { redriveHref } from '@/components/redrive/redrive-href';
import { selectionFromPage } from '@/components/redrive/selection-query';
import { StartRedrive } from '@/components/redrive/start-redrive';

function describe(s: RedriveSelectionInput, clusterTemplate: string | null): string {
  if ('ids' in s) return `${s.ids.length} selected dead letter${s.ids.length === 1 ? '' : 's'}`;
  // A cluster by what its errors say (masked as the cluster page shows it), not by its id.
  if ('cluster' in s) return `cluster “${clusterTemplate ?? s.cluster}”${s.source ? ` in ${s.source}` : ''}`;
  if ('filter' in s) return 'the filtered dead letters';
  return `all open dead letters of ${s.source}`;
}

export default async function NewRedrivePage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const actor = await pageActor('deadletters.redrive');
  const sp = await searchParams;
  const { selection, problem } = selectionFromPage(sp);
  if (!selection) {
    const sources = await listSources(actor, 'deadletters.redrive');
    return (
      <>
        <h1>Start a redrive</h1>
        {/* A bare /redrives/new is the source list, not an error. */}
        {problem && Object.keys(sp).length ? <p className="error">{problem}</p> : null}
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
  const clusterTemplate =
    'cluster' in selection
      ? await getCluster(actor, selection.cluster).then(
          (c) => c.template,
          () => null,
        )
      : null;
  return (
    <>
      <h1>Start a redrive</h1>
      <StartRedrive selection={selection} title={`Redrive ${describe(selection, clusterTemplate)}`} destinations={destinations} />
    </>
  );
}
