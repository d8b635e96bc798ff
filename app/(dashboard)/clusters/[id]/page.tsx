// /clusters/[id] — one cause: its template, error type, top frame, sources, samples and trend; all its
// members with the dead-letter list's filters; archive, merge and redrive the whole cluster
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { ZodError } from 'zod';
import { can } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';
import { getCluster, type ClusterDetail } from '@/lib/clustering/get-cluster';
import { listClusters } from '@/lib/clustering/list-clusters';
import { DEAD_LETTER_STATUSES, filtersFromSearchParams, filtersToSearchParams, type DeadLetterFilters } from '@/lib/deadletters/filters';
import { listDeadLetters, type DeadLetterPage } from '@/lib/deadletters/list-dead-letters';
import { DEAD_LETTER_REASONS } from '@/lib/deadletters/record-dead-letters';
import { AppError } from '@/lib/errors';
import { Sparkline } from '../../_charts/sparkline';
import { StartRedrive } from '../../_redrive/start-redrive';
import { redriveHref } from '../../_redrive/redrive-href';
import { redriveDestinations } from '../../_redrive/destinations';
import { DeadLetterRows } from '../../dead-letters/dead-letter-rows';
import { age } from '../../dead-letters/format';
import { toParams, type SearchParams } from '../cluster-query';
import { ArchiveClusterForm, MergeClusterForm } from './cluster-forms';
import { ClusterCorrections } from './cluster-corrections-panel';
import { TrendChart } from './trend-chart';
import { OwnershipPanel } from './ownership-panel';
import { assignablePeople, getOwnership } from '@/lib/ownership/ownership';
import styles from '../clusters.module.css';

const n = (v: number) => v.toLocaleString('en');

async function clusterOrNotFound(...args: Parameters<typeof getCluster>): Promise<ClusterDetail> {
  try {
    return await getCluster(...args);
  } catch (e) {
    if (e instanceof AppError && e.code === 'not_found') notFound();
    throw e;
  }
}

export default async function ClusterPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const actor = await pageActor('deadletters.read');
  const { id } = await params;
  const cluster = await clusterOrNotFound(actor, id);
  // An alias (merged into this cluster) shows the cluster it belongs to, under its own address.
  if (cluster.aliasOf) redirect(`/clusters/${cluster.id}`);

  const query = toParams(await searchParams);
  let filters: DeadLetterFilters | null = null;
  let members: DeadLetterPage = { deadLetters: [], nextCursor: null };
  let problem: string | null = null;
  try {
    filters = { ...filtersFromSearchParams(query), clusterId: cluster.id };
    members = await listDeadLetters(actor, filters, query.get('cursor'), { limit: 50 });
  } catch (e) {
    if (!(e instanceof ZodError) && !(e instanceof AppError && e.status === 400)) throw e;
    problem = e instanceof ZodError ? e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : e.message;
  }
  const memberQuery = filters ? filtersToSearchParams({ ...filters, clusterId: undefined }) : new URLSearchParams();
  const canMerge = can(actor.role, 'clusters.merge');
  const candidates = canMerge
    ? (await listClusters(actor, {}, null, { limit: 50 })).clusters
        .filter((c) => c.id !== cluster.id)
        .map((c) => ({ id: c.id, label: `${c.errorType ?? '—'}: ${c.template.slice(0, 80)} (${c.openCount} open)` }))
    : [];
  const one = (v: string[] | undefined) => v?.[0] ?? '';
  const canOwn = can(actor.role, 'clusters.own');
  const [ownership, people] = await Promise.all([getOwnership(actor, cluster.id), canOwn ? assignablePeople(actor) : []]);

  return (
    <>
      <h1>Cluster</h1>
      <div className="card">
        <p className={styles.template} data-testid="cluster-template">
          {cluster.template || '(empty message)'}
        </p>
        <dl className={styles.meta}>
          <dt>Error type</dt>
          <dd data-testid="cluster-error-type">{cluster.errorType ?? '—'}</dd>
          <dt>Top frame</dt>
          <dd>{cluster.topFrame ?? '— (no in-app frame)'}</dd>
          <dt>Dead letters</dt>
          <dd>
            <strong data-testid="cluster-open">{n(cluster.openCount)}</strong> open of <strong data-testid="cluster-count">{n(cluster.count)}</strong> · {n(cluster.ratePerHour)}
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

      <OwnershipPanel clusterId={cluster.id} ownership={{ ...ownership, assignee: ownership.assignee?.email ?? null }} canEdit={canOwn} people={people} />

      <div className={styles.columns}>
        <section className="card">
          <h2>Per hour, last 7 days</h2>
          <TrendChart from={cluster.trend.from.toISOString()} counts={cluster.trend.counts} />
        </section>
        <section className="card">
          <h2>Sources</h2>
          <table data-testid="cluster-sources">
            <thead>
              <tr>
                <th>Source</th>
                <th className={styles.num}>Open</th>
                <th className={styles.num}>Total</th>
                <th>Last seen</th>
              </tr>
            </thead>
            <tbody>
              {cluster.sources.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Link href={`/dead-letters?${new URLSearchParams({ source: s.name, clusterId: cluster.id })}`}>{s.name}</Link>
                  </td>
                  <td className={styles.num}>{n(s.openCount)}</td>
                  <td className={styles.num}>{n(s.count)}</td>
                  <td className={styles.when}>{age(s.lastSeen)} ago</td>
                </tr>
              ))}
            </tbody>
          </table>
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
      </div>

      <section className={`card ${styles.actions}`}>
        <h2>Decide for the whole cluster</h2>
        {can(actor.role, 'deadletters.archive') ? <ArchiveClusterForm clusterId={cluster.id} open={cluster.openCount} /> : null}
        {canMerge ? <MergeClusterForm clusterId={cluster.id} candidates={candidates} /> : null}
        {!can(actor.role, 'deadletters.archive') && !canMerge ? <p className="muted">Your role reads clusters; it does not decide on them.</p> : null}
      </section>
      <ClusterCorrections actor={actor} clusterId={cluster.id} splitFrom={cluster.splitFromId} />
      {can(actor.role, 'deadletters.redrive') && cluster.openCount > 0 ? (
        cluster.sources.filter((s) => s.openCount > 0).length === 1 ? (
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
        ) : (
          <section className="card" data-testid="redrive-cluster">
            <h2>Redrive the cluster</h2>
            <p className="muted">A redrive goes back to one source at a time:</p>
            <ul>
              {cluster.sources
                .filter((s) => s.openCount > 0)
                .map((s) => (
                  <li key={s.id}>
                    <Link href={redriveHref({ cluster: cluster.id, source: s.name })}>
                      Redrive the {n(s.openCount)} open in {s.name}…
                    </Link>
                  </li>
                ))}
            </ul>
          </section>
        )
      ) : null}

      <h2>Members</h2>
      <form method="get" className={`card ${styles.filters}`} data-testid="member-filters">
        <label>
          Status
          <select name="status" defaultValue={one(filters?.status)}>
            <option value="">any</option>
            {DEAD_LETTER_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Source
          <select name="source" defaultValue={one(filters?.source)}>
            <option value="">any</option>
            {cluster.sources.map((s) => (
              <option key={s.id} value={s.name}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Reason
          <select name="reason" defaultValue={one(filters?.reason)}>
            <option value="">any</option>
            {DEAD_LETTER_REASONS.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <label>
          Search payload and error text
          <input type="search" name="q" defaultValue={filters?.q ?? ''} placeholder="at least 3 characters" />
        </label>
        <label>
          Sort
          <select name="sort" defaultValue={filters?.sort ?? 'newest'}>
            <option value="newest">newest first</option>
            <option value="oldest">oldest first</option>
          </select>
        </label>
        <button type="submit">Apply</button>
        <Link href={`/dead-letters?${new URLSearchParams([...memberQuery, ['clusterId', cluster.id]])}`}>Open in the dead-letter list (bulk, export)</Link>
      </form>
      {problem ? (
        <p className="error" role="alert">
          {problem}
        </p>
      ) : null}
      <DeadLetterRows deadLetters={members.deadLetters} testId="cluster-members" rowTestId="member-row" empty="No members match." />
      <div className={styles.pager}>
        {query.get('cursor') ? <Link href={`/clusters/${cluster.id}?${memberQuery}`}>← First page</Link> : null}
        {members.nextCursor ? (
          <Link href={`/clusters/${cluster.id}?${new URLSearchParams([...memberQuery, ['cursor', members.nextCursor]])}`}>Next page →</Link>
        ) : null}
      </div>
    </>
  );
}
