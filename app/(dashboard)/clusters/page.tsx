// /clusters — every cluster of the sources the user may read: the causes behind the dead letters,
// newest wave first, filtered, keyset-paged
import Link from 'next/link';
import { pageActor } from '@/lib/auth/guard';
import { clusterFiltersToSearchParams } from '@/lib/clustering/list-clusters';
import { listSources } from '@/lib/sources/list-sources';
import { clusterPageFor } from '@/components/cluster-list';
import { ClusterTable } from '@/components/cluster-table';
import { FilterForm, SourceSelect, TemplateSearchInput } from '@/components/filter-fields';
import { KeysetPager } from '@/components/keyset-pager';
import { Problem } from '@/components/problem';
import { first, toParams, type SearchParams } from '@/components/search-params';

export default async function ClustersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await pageActor('deadletters.read');
  const params = toParams(await searchParams);
  const [{ filters, page, problem }, sources] = await Promise.all([clusterPageFor(actor, params), listSources(actor)]);
  const query = clusterFiltersToSearchParams(filters);
  return (
    <>
      <h1>Clusters</h1>
      <FilterForm testId="cluster-filters">
        <label>
          Show
          <select name="state" defaultValue={filters.state}>
            <option value="open">with open dead letters</option>
            <option value="all">all clusters</option>
          </select>
        </label>
        <SourceSelect sources={sources} value={first(filters.source)} />
        <label>
          Error type
          <input name="errorType" defaultValue={filters.errorType ?? ''} />
        </label>
        <TemplateSearchInput value={filters.q ?? ''} />
        <button type="submit">Apply</button>
        <Link href="/clusters">Reset</Link>
      </FilterForm>
      {problem ? <Problem message={problem} /> : null}
      <ClusterTable clusters={page.clusters} empty="No clusters match." />
      <KeysetPager path="/clusters" query={query} cursor={params.get('cursor')} nextCursor={page.nextCursor} />
    </>
  );
}
