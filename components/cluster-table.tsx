// The cluster list as a table (the inbox and /clusters): one row per cause, newest wave first.
import Link from 'next/link';
import type { ClusterSummary } from '@/lib/clustering/list-clusters';
import { Sparkline } from './charts/sparkline';
import { EmptyRow } from './data-table';
import { age } from './format';
import styles from './cluster-table.module.css';
import { OwnershipCell } from './ownership-cell';

const n = (v: number) => v.toLocaleString('en');

/** Poison or outage, as the alarms say it (lib/clustering/cluster-verdict.ts). */
const VERDICT: Record<ClusterSummary['verdict'], { tone: string; title: string }> = {
  outage: { tone: 'bad', title: 'transient errors that still arrive: check the downstream; do not redrive while they keep arriving' },
  'outage, errors stopped': { tone: 'warn', title: 'transient errors that stopped arriving: redrive once the downstream is confirmed healthy, rate-limited' },
  poison: { tone: 'warn', title: 'permanent errors (parse, schema, validation, not found, constraint): fix the producer or the consumer, then redrive' },
  unknown: { tone: '', title: 'the errors name no known transient or permanent cause' },
};

export function ClusterTable({ clusters, empty }: { clusters: ClusterSummary[]; empty: string }) {
  return (
    <table data-testid="cluster-table">
      <thead>
        <tr>
          <th>Cause</th>
          <th>Sources</th>
          <th>Owner</th>
          <th className={styles.num}>Open</th>
          <th className={styles.num}>Total</th>
          <th className={styles.num}>Rate</th>
          <th>Last 24 h</th>
          <th>Last seen</th>
          <th>First seen</th>
        </tr>
      </thead>
      <tbody>
        {clusters.map((c) => (
          <tr key={c.id} data-testid="cluster-row" data-id={c.id}>
            <td>
              <Link href={`/clusters/${c.id}`} className={styles.template}>
                {c.template || '(empty message)'}
              </Link>
              <div>
                <span className={`badge ${VERDICT[c.verdict].tone}`} data-testid="cluster-verdict" title={VERDICT[c.verdict].title}>
                  {c.verdict}
                </span>{' '}
                <span className="badge">{c.errorType ?? '—'}</span> {c.topFrame ? <span className={styles.frame}>at {c.topFrame}</span> : null}
                {c.groupedBy ? (
                  <span className={styles.frame} data-testid="cluster-grouped-by">
                    {' '}
                    · {c.groupedBy}
                  </span>
                ) : null}
              </div>
            </td>
            <td>{c.sources.map((s) => s.name).join(', ')}</td>
            <OwnershipCell ownership={c.ownership} />
            <td className={styles.num} data-testid="cluster-open">
              {n(c.openCount)}
            </td>
            <td className={styles.num} data-testid="cluster-count">
              {n(c.count)}
            </td>
            <td className={styles.num}>{n(c.ratePerHour)}/h</td>
            <td>
              <Sparkline values={c.sparkline} title={`${n(c.sparkline.reduce((a, b) => a + b, 0))} in the last 24 h`} />
            </td>
            <td className={styles.when} title={c.lastSeen}>
              {age(c.lastSeen)} ago
            </td>
            <td className={styles.when} title={c.firstSeen}>
              {age(c.firstSeen)} ago
            </td>
          </tr>
        ))}
        {clusters.length === 0 ? <EmptyRow columns={9}>{empty}</EmptyRow> : null}
      </tbody>
    </table>
  );
}
