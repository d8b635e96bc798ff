// /inbox — the support engineer's home: open clusters of my team's sources, newest wave first
import { pageActor } from '@/lib/auth/guard';
import { clusterFiltersToSearchParams, type ClusterPage } from '@/lib/clustering/list-clusters';
import { listSources } from '@/lib/sources/list-sources';
import { clusterPageFor } from '@/components/cluster-list';
import { ClusterTable } from '@/components/cluster-table';
import { FilterForm, SourceSelect, TemplateSearchInput } from '@/components/filter-fields';
import { KeysetPager } from '@/components/keyset-pager';
import { OpenedView } from '@/components/opened-view';
import { ProblemOrSaveView } from '@/components/problem';
import { first, toParams, type SearchParams } from '@/components/search-params';

export default async function InboxPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await pageActor('deadletters.read');
  const params = toParams(await searchParams);
  const [{ filters, page, problem }, sources] = await Promise.all([clusterPageFor(actor, params, { state: 'open' }), listSources(actor)]);
  const query = clusterFiltersToSearchParams(filters);
  return (
    <>
      <h1>Inbox</h1>
      <OpenedView actor={actor} id={params.get('view') ?? undefined} />
      <p className="muted" data-testid="inbox-summary">
        {summary(page)}
      </p>
      <FilterForm>
        <SourceSelect
          sources={sources}
          value={first(filters.source)}
          anyLabel={sources.length === 1 ? `all of it (${sources[0]!.name})` : `all ${sources.length} sources`}
        />
        <label>
          Owner
          <select name="owner" defaultValue={filters.owner ?? ''}>
            <option value="">anyone or no one</option>
            <option value="mine">mine</option>
            <option value="unassigned">unassigned</option>
            <option value="on_hold">on hold</option>
          </select>
        </label>
        <TemplateSearchInput value={filters.q ?? ''} />
        <button type="submit">Apply</button>
      </FilterForm>
      <ProblemOrSaveView problem={problem} actor={actor} page="inbox" query={query} />
      <ClusterTable clusters={page.clusters} empty="No open clusters." />
      <KeysetPager path="/inbox" query={query} cursor={params.get('cursor')} nextCursor={page.nextCursor} />
    </>
  );
}

function summary(page: ClusterPage): string {
  if (page.clusters.length === 0) return 'Nothing open: no dead letter waits for a decision in your sources.';
  const total = page.clusters.reduce((n, c) => n + c.openCount, 0);
  const causes = page.clusters.length;
  return `${total.toLocaleString('en')} open dead letter${total === 1 ? '' : 's'} in ${causes}${page.nextCursor ? '+' : ''} cause${causes === 1 ? '' : 's'}, newest wave first.`;
}
