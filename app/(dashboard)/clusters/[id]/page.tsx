// /clusters/[id] — one cause: its template, error type, top frame, sources, samples and trend; all its
// members with the dead-letter list's filters; archive, merge and redrive the whole cluster
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { can, type Actor } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { getCluster, type ClusterDetail } from '@/lib/clustering/get-cluster';
import { listClusters } from '@/lib/clustering/list-clusters';
import { filtersFromSearchParams, filtersToSearchParams, type DeadLetterFilters } from '@/lib/deadletters/filters';
import { listDeadLetters, type DeadLetterPage } from '@/lib/deadletters/list-dead-letters';
import { AppError } from '@/lib/errors';
import { assignablePeople, getOwnership } from '@/lib/ownership/ownership';
import { Sparkline } from '@/components/charts/sparkline';
import { DeadLetterRows } from '@/components/dead-letter-rows';
import { DataTable } from '@/components/data-table';
import { FilterForm, PayloadSearchInput, ReasonSelect, SortSelect, SourceSelect, StatusSelect } from '@/components/filter-fields';
import { age } from '@/components/format';
import { KeysetPager } from '@/components/keyset-pager';
import { Problem } from '@/components/problem';
import { redriveDestinations } from '@/components/redrive/destinations';
import { redriveHref } from '@/components/redrive/redrive-href';
import { StartRedrive } from '@/components/redrive/start-redrive';
import { first, problemMessage, toParams, type SearchParams } from '@/components/search-params';
import { ArchiveClusterForm, MergeClusterForm } from './cluster-forms';
import { ClusterCorrections } from './cluster-corrections-panel';
import { OwnershipPanel } from './ownership-panel';
import { TrendChart } from './trend-chart';
import styles from '../clusters.module.css';

const n = (v: number) => v.toLocaleString('en');

export default async function ClusterPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const actor = await pageActor('deadletters.read');
  const { id } = await params;
  const cluster = await clusterOrNotFound(actor, id);
  // An alias (merged into this cluster) shows the cluster it belongs to, under its own address.
  if (cluster.aliasOf) redirect(`/clusters/${cluster.id}`);
  const query = toParams(await searchParams);
  const { filters, members, problem } = await loadMembers(actor, cluster, query);
  const canOwn = can(actor.role, 'clusters.own');
  const [ownership, people] = await Promise.all([getOwnership(actor, cluster.id), canOwn ? assignablePeople(actor) : []]);

  return (
    <>
      <h1>Cluster</h1>
      <ClusterFacts cluster={cluster} />
      <OwnershipPanel clusterId={cluster.id} ownership={{ ...ownership, assignee: ownership.assignee?.email ?? null }} canEdit={canOwn} people={people} />
      <div className={styles.columns}>
        <section className="card">
          <h2>Per hour, last 7 days</h2>
          <TrendChart from={cluster.trend.from.toISOString()} counts={cluster.trend.counts} />
        </section>
        <SourcesAndSamples cluster={cluster} />
      </div>
      <ClusterDecisions actor={actor} cluster={cluster} />
      <ClusterCorrections actor={actor} clusterId={cluster.id} splitFrom={cluster.splitFromId} />
      {can(actor.role, 'deadletters.redrive') && cluster.openCount > 0 ? <RedriveCluster actor={actor} cluster={cluster} /> : null}
      <Members cluster={cluster} filters={filters} members={members} problem={problem} cursor={query.get('cursor')} />
    </>
  );
}

async function clusterOrNotFound(...args: Parameters<typeof getCluster>): Promise<ClusterDetail> {
  try {
    return await getCluster(...args);
  } catch (e) {
    if (e instanceof AppError && e.code === 'not_found') notFound();
    throw e;
  }
}

/** The members page the query string asks for, always within this cluster; a bad filter is a message. */
async function loadMembers(actor: Actor, cluster: ClusterDetail, query: URLSearchParams) {
  let filters: DeadLetterFilters | null = null;
  let members: DeadLetterPage = { deadLetters: [], nextCursor: null };
  let problem: string | null = null;
  try {
    filters = { ...filtersFromSearchParams(query), clusterId: cluster.id };
    members = await listDeadLetters(actor, filters, query.get('cursor'), { limit: 50 });
  } catch (e) {
    problem = problemMessage(e);
  }
  return { filters, members, problem };
}

function ClusterFacts({ cluster }: { cluster: ClusterDetail }) {
  return (
    <div className="card">
      <p className={styles.template} data-testid="cluster-template">
        {cluster.template || '(empty message)'}
      </p>
      <dl className={styles.meta}>
        <dt>Error type</dt>
        <dd data-testid="cluster-error-type">{cluster.errorType ?? '—'}</dd>
        <dt>Top frame</dt>
        <dd>{cluster.topFrame ?? '— (no in-app frame)'}</dd>
        <dt>What the errors say</dt>
        <dd data-testid="cluster-verdict">
          {cluster.verdict} ({cluster.errorClass} errors)
        </dd>
        <dt>Dead letters</dt>
        <dd>
          <strong data-testid="cluster-open">{n(cluster.openCount)}</strong> open of <strong data-testid="cluster-count">{n(cluster.count)}</strong> ·{' '}
          {n(cluster.ratePerHour)}
          /h now <Sparkline values={cluster.sparkline} title="last 24 hours" />
        </dd>
        <dt>Seen</dt>
        <dd>
          {cluster.firstSeen ? `first ${age(cluster.firstSeen)} ago` : '—'}
          {cluster.lastSeen ? `, last ${age(cluster.lastSeen)} ago` : ''}
        </dd>
        {cluster.groupedBy ? (
          <>
            <dt>Grouped by</dt>
            <dd data-testid="cluster-grouped-by">{cluster.groupedBy}</dd>
          </>
        ) : null}
        <dt>Fingerprint</dt>
        <dd>
          <code>{cluster.fingerprint}</code>
        </dd>
        {cluster.merged.length ? (
          <>
            <dt>Merged in</dt>
            <dd>
              <ul className={styles.samples}>
                {cluster.merged.map((m) => (
                  <li key={m.id}>
                    <code>{m.template}</code>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        ) : null}
      </dl>
    </div>
  );
}

function SourcesAndSamples({ cluster }: { cluster: ClusterDetail }) {
  return (
    <section className="card">
      <h2>Sources</h2>
      <DataTable
        testId="cluster-sources"
        rows={cluster.sources}
        rowKey={(s) => s.id}
        columns={[
          { header: 'Source', cell: (s) => <Link href={`/dead-letters?${new URLSearchParams({ source: s.name, clusterId: cluster.id })}`}>{s.name}</Link> },
          { header: 'Open', th: { className: styles.num }, className: styles.num, cell: (s) => n(s.openCount) },
          { header: 'Total', th: { className: styles.num }, className: styles.num, cell: (s) => n(s.count) },
          { header: 'Last seen', className: styles.when, cell: (s) => `${age(s.lastSeen)} ago` },
        ]}
      />
      <h2>Samples</h2>
      <ul className={styles.samples} data-testid="cluster-samples">
        {cluster.samples.map((s) => (
          <li key={s.id}>
            <Link href={`/dead-letters/${s.id}`}>
              <code>{s.errorMessage ?? '(no message)'}</code>
            </Link>{' '}
            <span className="muted">
              {s.source}, {age(s.deadAt)} ago
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Archive or merge the whole cluster, as the role allows. */
async function ClusterDecisions({ actor, cluster }: { actor: Actor; cluster: ClusterDetail }) {
  const canArchive = can(actor.role, 'deadletters.archive');
  const canMerge = can(actor.role, 'clusters.merge');
  const candidates = canMerge
    ? (await listClusters(actor, {}, null, { limit: 50 })).clusters
        .filter((c) => c.id !== cluster.id)
        .map((c) => ({ id: c.id, label: `${c.errorType ?? '—'}: ${c.template.slice(0, 80)} (${c.openCount} open)` }))
    : [];
  return (
    <section className={`card ${styles.actions}`}>
      <h2>Decide for the whole cluster</h2>
      {canArchive ? <ArchiveClusterForm clusterId={cluster.id} open={cluster.openCount} /> : null}
      {canMerge ? <MergeClusterForm clusterId={cluster.id} candidates={candidates} /> : null}
      {!canArchive && !canMerge ? <p className="muted">Your role reads clusters; it does not decide on them.</p> : null}
    </section>
  );
}

/** A redrive goes back to one source: started here when the open members are in one, else one link per source. */
async function RedriveCluster({ actor, cluster }: { actor: Actor; cluster: ClusterDetail }) {
  const withOpen = cluster.sources.filter((s) => s.openCount > 0);
  if (withOpen.length !== 1) {
    return (
      <section className="card" data-testid="redrive-cluster">
        <h2>Redrive the cluster</h2>
        <p className="muted">A redrive goes back to one source at a time:</p>
        <ul>
          {withOpen.map((s) => (
            <li key={s.id}>
              <Link href={redriveHref({ cluster: cluster.id, source: s.name })}>
                Redrive the {n(s.openCount)} open in {s.name}…
              </Link>
            </li>
          ))}
        </ul>
      </section>
    );
  }
  return (
    <>
      <StartRedrive selection={{ cluster: cluster.id }} title="Redrive the cluster" destinations={await redriveDestinations(actor)} />
      {can(actor.role, 'deadletters.edit') ? (
        <p>
          <Link href={`/redrives/transform?${new URLSearchParams({ cluster: cluster.id })}`} data-testid="transform-link">
            Transform and redrive the cluster…
          </Link>{' '}
          <span className="muted">(set, rename or remove JSON paths, replace a header; previewed first)</span>
        </p>
      ) : null}
    </>
  );
}

function Members({
  cluster,
  filters,
  members,
  problem,
  cursor,
}: {
  cluster: ClusterDetail;
  filters: DeadLetterFilters | null;
  members: DeadLetterPage;
  problem: string | null;
  cursor: string | null;
}) {
  // The cluster is in the path, so it stays out of the members' query string.
  const memberQuery = filters ? filtersToSearchParams({ ...filters, clusterId: undefined }) : new URLSearchParams();
  return (
    <>
      <h2>Members</h2>
      <FilterForm testId="member-filters">
        <StatusSelect value={first(filters?.status)} />
        <SourceSelect sources={cluster.sources} value={first(filters?.source)} />
        <ReasonSelect value={first(filters?.reason)} />
        <PayloadSearchInput value={filters?.q ?? ''} />
        <SortSelect value={filters?.sort ?? 'newest'} />
        <button type="submit">Apply</button>
        <Link href={`/dead-letters?${new URLSearchParams([...memberQuery, ['clusterId', cluster.id]])}`}>Open in the dead-letter list (bulk, export)</Link>
      </FilterForm>
      {problem ? <Problem message={problem} /> : null}
      <DeadLetterRows deadLetters={members.deadLetters} testId="cluster-members" rowTestId="member-row" empty="No members match." />
      <KeysetPager path={`/clusters/${cluster.id}`} query={memberQuery} cursor={cursor} nextCursor={members.nextCursor} />
    </>
  );
}
