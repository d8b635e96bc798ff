// /inbox — the support engineer's home: open clusters of my team's sources, newest wave first
import Link from 'next/link';
import { pageActor } from '@/lib/auth/guard';
import { clusterFiltersToSearchParams } from '@/lib/clustering/list-clusters';
import { listSources } from '@/lib/sources/list-sources';
import { can } from '@/lib/auth';
import { ClusterTable } from '../clusters/cluster-table';
import { SaveViewForm } from '../views/forms';
import { OpenedView } from '../views/opened-view';
import { clusterPageFor, toParams, type SearchParams } from '../clusters/cluster-query';
import styles from '../clusters/clusters.module.css';

export default async function InboxPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await pageActor('deadletters.read');
  const params = toParams(await searchParams);
  const [{ filters, page, problem }, sources] = await Promise.all([clusterPageFor(actor, params, { state: 'open' }), listSources(actor)]);
  const query = clusterFiltersToSearchParams(filters);
  const total = page.clusters.reduce((n, c) => n + c.openCount, 0);
  return (
    <>
      <h1>Inbox</h1>
      <OpenedView actor={actor} id={params.get('view') ?? undefined} />
      <p className="muted" data-testid="inbox-summary">
        {page.clusters.length === 0
          ? 'Nothing open: no dead letter waits for a decision in your sources.'
          : `${total.toLocaleString('en')} open dead letter${total === 1 ? '' : 's'} in ${page.clusters.length}${page.nextCursor ? '+' : ''} cause${page.clusters.length === 1 ? '' : 's'}, newest wave first.`}
      </p>
      <form method="get" className={`card ${styles.filters}`}>
        <label>
          Source
          <select name="source" defaultValue={filters.source?.[0] ?? ''}>
            <option value="">all of {sources.length === 1 ? 'it' : 'them'} ({sources.map((s) => s.name).join(', ') || 'none'})</option>
            {sources.map((s) => (
              <option key={s.id} value={s.name}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Owner
          <select name="owner" defaultValue={filters.owner ?? ''}>
            <option value="">anyone or no one</option>
            <option value="mine">mine</option>
            <option value="unassigned">unassigned</option>
            <option value="on_hold">on hold</option>
          </select>
        </label>
        <label>
          Template contains
          <input type="search" name="q" defaultValue={filters.q ?? ''} />
        </label>
        <button type="submit">Apply</button>
      </form>
      {problem ? (
        <p className="error" role="alert">
          {problem}
        </p>
      ) : can(actor.role, 'views.manage') ? (
        <SaveViewForm page="inbox" filters={query.toString()} canShare={!!actor.teamId} />
      ) : null}
      <ClusterTable clusters={page.clusters} empty="No open clusters." />
      <div className={styles.pager}>
        {params.get('cursor') ? <Link href={`/inbox?${query}`}>← First page</Link> : null}
        {page.nextCursor ? <Link href={`/inbox?${new URLSearchParams([...query, ['cursor', page.nextCursor]])}`}>Next page →</Link> : null}
      </div>
    </>
  );
}
