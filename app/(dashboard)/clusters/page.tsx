// /clusters — every cluster of the sources the user may read: the causes behind the dead letters,
// newest wave first, filtered, keyset-paged
import Link from 'next/link';
import { pageActor } from '@/lib/auth/guard';
import { clusterFiltersToSearchParams } from '@/lib/clustering/list-clusters';
import { listSources } from '@/lib/sources/list-sources';
import { ClusterTable } from './cluster-table';
import { clusterPageFor, toParams, type SearchParams } from './cluster-query';
import styles from './clusters.module.css';

export default async function ClustersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await pageActor('deadletters.read');
  const params = toParams(await searchParams);
  const [{ filters, page, problem }, sources] = await Promise.all([clusterPageFor(actor, params), listSources(actor)]);
  const query = clusterFiltersToSearchParams(filters);
  return (
    <>
      <h1>Clusters</h1>
      <form method="get" className={`card ${styles.filters}`} data-testid="cluster-filters">
        <label>
          Show
          <select name="state" defaultValue={filters.state}>
            <option value="open">with open dead letters</option>
            <option value="all">all clusters</option>
          </select>
        </label>
        <label>
          Source
          <select name="source" defaultValue={filters.source?.[0] ?? ''}>
            <option value="">any</option>
            {sources.map((s) => (
              <option key={s.id} value={s.name}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Error type
          <input name="errorType" defaultValue={filters.errorType ?? ''} />
        </label>
        <label>
          Template contains
          <input type="search" name="q" defaultValue={filters.q ?? ''} />
        </label>
        <button type="submit">Apply</button>
        <Link href="/clusters">Reset</Link>
      </form>
      {problem ? (
        <p className="error" role="alert">
          {problem}
        </p>
      ) : null}
      <ClusterTable clusters={page.clusters} empty="No clusters match." />
      <div className={styles.pager}>
        {params.get('cursor') ? <Link href={`/clusters?${query}`}>← First page</Link> : null}
        {page.nextCursor ? <Link href={`/clusters?${new URLSearchParams([...query, ['cursor', page.nextCursor]])}`}>Next page →</Link> : null}
      </div>
    </>
  );
}
